// SPDX-License-Identifier: MIT
#include "model/wire/ProbeReplies.h"

namespace qs::probe {

namespace {

using json = nlohmann::json;

json parseJson(const QByteArray& body)
{
    return json::parse(body.constData(), body.constData() + body.size(), nullptr, false);
}

QString qstr(const json& j, const char* key)
{
    if (j.is_object() && j.contains(key) && j[key].is_string())
        return QString::fromStdString(j[key].get<std::string>());
    return {};
}

std::optional<qint64> qint(const json& j, const char* key)
{
    if (j.is_object() && j.contains(key) && j[key].is_number_integer())
        return j[key].get<qint64>();
    return std::nullopt;
}

const json* object(const json& j, const char* key)
{
    if (j.is_object() && j.contains(key) && j[key].is_object())
        return &j[key];
    return nullptr;
}

void addEvidence(QString& evidence, const QString& more)
{
    if (!evidence.isEmpty())
        evidence += QStringLiteral("; ");
    evidence += more;
}

/// Takes a context size only when it is one: a positive number of tokens below 2^40.
void takeContextSize(ProbeResult& result, std::optional<qint64> tokens, const QString& source)
{
    if (!tokens)
        return;
    if (*tokens <= 0 || *tokens > maxContextTokens) {
        result.warnings << QStringLiteral("%1 says the context is %2 tokens; ignored (not a context size)")
                               .arg(source)
                               .arg(*tokens);
        return;
    }
    result.contextSize = tokens;
    result.contextSource = source;
}

} // namespace

void readHealthOk(const QByteArray& body, ProbeResult& result)
{
    result.healthDetail = qstr(parseJson(body), "status");
}

bool readModelList(const QByteArray& body, ProbeResult& result)
{
    const json j = parseJson(body);
    if (!j.is_object() || !j.contains("data") || !j["data"].is_array())
        return false;
    QString ownedBy;
    for (const json& m : j["data"]) {
        const QString id = qstr(m, "id");
        if (id.isEmpty())
            continue;
        result.models << id;
        if (result.models.size() != 1)
            continue;
        ownedBy = qstr(m, "owned_by");
        takeContextSize(result, qint(m, "max_model_len"), QStringLiteral("/v1/models max_model_len"));
        if (const json* meta = object(m, "meta"))
            takeContextSize(result, qint(*meta, "n_ctx"), QStringLiteral("/v1/models meta.n_ctx"));
        if (result.modelPath.isEmpty())
            result.modelPath = qstr(m, "root");
    }
    Runtime detected = Runtime::Unknown;
    if (ownedBy == u"llamacpp")
        detected = Runtime::LlamaServer;
    else if (ownedBy == u"vllm")
        detected = Runtime::Vllm;
    else if (ownedBy == u"sglang")
        detected = Runtime::Sglang;
    if (detected != Runtime::Unknown)
        addEvidence(result.runtimeEvidence, QStringLiteral("/v1/models owned_by \"%1\"").arg(ownedBy));
    else if (result.serverHeader.contains(u"llama.cpp")) {
        detected = Runtime::LlamaServer;
        addEvidence(result.runtimeEvidence, QStringLiteral("Server: %1").arg(result.serverHeader));
    }
    if (detected != Runtime::Unknown) {
        if (result.endpoint.runtime != Runtime::Unknown && result.endpoint.runtime != detected)
            result.warnings << QStringLiteral("the endpoint is configured as %1 but the server looks like %2")
                                   .arg(runtimeName(result.endpoint.runtime), runtimeName(detected));
        result.runtime = detected;
    }
    return true;
}

bool readLlamaProps(const QByteArray& body, ProbeResult& result)
{
    const json j = parseJson(body);
    if (!j.is_object() || !(j.contains("default_generation_settings") || j.contains("build_info")))
        return false;
    if (result.runtime == Runtime::Unknown)
        result.runtime = Runtime::LlamaServer;
    addEvidence(result.runtimeEvidence, QStringLiteral("GET /props"));
    result.properties = j;
    result.serverVersion = qstr(j, "build_info");
    result.chatTemplate = qstr(j, "chat_template");
    if (const QString path = qstr(j, "model_path"); !path.isEmpty())
        result.modelPath = path;
    if (const auto n = qint(j, "total_slots")) {
        if (*n >= 1 && *n <= maxSlots)
            result.totalSlots = int(*n);
        else
            result.warnings << QStringLiteral("/props says total_slots is %1; ignored").arg(*n);
    }
    if (const json* settings = object(j, "default_generation_settings"))
        takeContextSize(result, qint(*settings, "n_ctx"),
            QStringLiteral("/props default_generation_settings.n_ctx (per slot)"));
    if (result.totalSlots && *result.totalSlots > 1)
        result.warnings << QStringLiteral("llama-server has %1 slots: each request gets 1/%1 of the context "
                                          "(-c %2 in total) unless --kv-unified is set")
                               .arg(*result.totalSlots)
                               .arg(result.contextSize.value_or(0) * *result.totalSlots);
    return true;
}

bool readVllmVersion(const QByteArray& body, ProbeResult& result)
{
    const json j = parseJson(body);
    if (!j.is_object() || qstr(j, "version").isEmpty())
        return false;
    if (result.runtime == Runtime::Unknown && result.serverHeader.contains(u"uvicorn"))
        result.runtime = Runtime::Vllm;
    if (result.runtime == Runtime::Vllm)
        addEvidence(result.runtimeEvidence, QStringLiteral("GET /version"));
    result.serverVersion = qstr(j, "version");
    result.properties = j;
    return true;
}

bool readSglangInfo(const QByteArray& body, ProbeResult& result)
{
    const json j = parseJson(body);
    if (!j.is_object())
        return false;
    if (result.runtime == Runtime::Unknown)
        result.runtime = Runtime::Sglang;
    addEvidence(result.runtimeEvidence, QStringLiteral("GET /server_info"));
    result.properties = j;
    if (const QString version = qstr(j, "version"); !version.isEmpty())
        result.serverVersion = version;
    takeContextSize(result, qint(j, "context_length"), QStringLiteral("/server_info context_length"));
    result.toolCallParser = qstr(j, "tool_call_parser");
    result.reasoningParser = qstr(j, "reasoning_parser");
    if (result.modelPath.isEmpty())
        result.modelPath = qstr(j, "model_path");
    return true;
}

} // namespace qs::probe
