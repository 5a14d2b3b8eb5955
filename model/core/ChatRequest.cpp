// SPDX-License-Identifier: MIT
#include "model/core/ChatRequest.h"

namespace qs {

ChatRequest ChatRequest::fromPrompt(const QString& prompt, const QString& system)
{
    ChatRequest r;
    if (!system.isEmpty())
        r.messages.push_back({{"role", "system"}, {"content", system.toStdString()}});
    r.messages.push_back({{"role", "user"}, {"content", prompt.toStdString()}});
    return r;
}

nlohmann::json buildChatBody(const Endpoint& endpoint, const ChatRequest& request)
{
    nlohmann::json body = nlohmann::json::object();
    if (!endpoint.model.isEmpty())
        body["model"] = endpoint.model.toStdString();
    body["messages"] = request.messages;
    body["stream"] = request.stream;
    if (request.stream)
        body["stream_options"] = {{"include_usage", true}};
    if (request.maxTokens)
        body["max_tokens"] = *request.maxTokens;
    if (request.temperature)
        body["temperature"] = *request.temperature;
    if (request.seed)
        body["seed"] = *request.seed;
    const bool tools = request.tools.is_array() && !request.tools.empty();
    if (tools)
        body["tools"] = request.tools;
    if (request.topLogprobs) {
        // llama-server answers logprobs + tools + stream with a 400 (llama.cpp issue #28478); its
        // native n_probs skips that check and returns the same OpenAI-shaped logprobs.
        if (endpoint.runtime == Runtime::LlamaServer && tools && request.stream) {
            body["n_probs"] = *request.topLogprobs;
        } else {
            body["logprobs"] = true;
            body["top_logprobs"] = *request.topLogprobs;
        }
    }
    if (request.noPromptCache && endpoint.runtime == Runtime::LlamaServer)
        body["cache_prompt"] = false;
    if (endpoint.extraBody.is_object())
        body.merge_patch(endpoint.extraBody);
    if (request.extraBody.is_object())
        body.merge_patch(request.extraBody);
    return body;
}

} // namespace qs
