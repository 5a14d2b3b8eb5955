// SPDX-License-Identifier: MIT
// Malformed suites: each is refused with "SOURCE: PATH: PROBLEM" naming the right place.
#include "SuiteTestSupport.h"

#include <cmath>
#include <limits>

using namespace qs;
using namespace qs::test;

namespace {

struct BadSuite {
    const char* name; ///< test name suffix
    const char* json; ///< the suite
    const char* path; ///< the exact JSON path the message must name
    const char* problem; ///< a fragment of the problem text
};

void PrintTo(const BadSuite& b, std::ostream* os)
{
    *os << b.name;
}

// A valid suite to break one piece at a time: tools are defined, so tool errors are about the test.
#define TOOLS R"("tools": [{"type": "function", "function": {"name": "web_search", "parameters": {}}}])"

const BadSuite badSuites[] = {
    // --- top level
    {"TopLevelArray", R"([1, 2])", "top level",
        "must be a JSON object with \"id\" and \"tests\", found a list"},
    {"TopLevelString", R"("suite")", "top level", "found a string (\"suite\")"},
    {"TopLevelNull", R"(null)", "top level", "found null"},
    {"MissingId", R"({"tests": [{"id": "a", "prompt": "x"}]})", "top level", "\"id\" is missing"},
    {"IdNumber", R"({"id": 5, "tests": [{"id": "a", "prompt": "x"}]})", "id",
        "must be a string, found a number (5)"},
    {"IdWithSpace", R"({"id": "my suite", "tests": [{"id": "a", "prompt": "x"}]})", "id",
        "is not a valid id"},
    {"IdEmpty", R"({"id": "", "tests": [{"id": "a", "prompt": "x"}]})", "id", "must not be empty"},
    {"NameNumber", R"({"id": "s", "name": 3, "tests": [{"id": "a", "prompt": "x"}]})", "name",
        "must be a string"},
    {"DescriptionList", R"({"id": "s", "description": [], "tests": [{"id": "a", "prompt": "x"}]})",
        "description", "must be a string, found an empty list"},
    {"SystemObject", R"({"id": "s", "system": {}, "tests": [{"id": "a", "prompt": "x"}]})", "system",
        "must be a string, found an object"},
    {"UnknownTopLevelKeyTypo", R"({"id": "s", "test": [], "tests": [{"id": "a", "prompt": "x"}]})", "test",
        "unknown key; did you mean \"tests\"?"},
    {"UnknownTopLevelKeyCamelCase",
        R"({"id": "s", "warmupPrompts": ["a"], "tests": [{"id": "a", "prompt": "x"}]})", "warmupPrompts",
        "did you mean \"warmup_prompts\"?"},
    {"MisplacedRunsAtTopLevel", R"({"id": "s", "runs": 3, "tests": [{"id": "a", "prompt": "x"}]})", "runs",
        "belongs inside \"defaults\""},
    {"UnknownTopLevelKeyFarAway", R"({"id": "s", "zzzzzzzz": 1, "tests": [{"id": "a", "prompt": "x"}]})",
        "zzzzzzzz", "unknown key; expected one of: id, name"},
    {"MissingTests", R"({"id": "s"})", "top level", "\"tests\" is missing"},
    {"TestsEmpty", R"({"id": "s", "tests": []})", "tests", "is empty; a suite needs at least one test"},
    {"TestsObject", R"({"id": "s", "tests": {"id": "a"}})", "tests",
        "must be a list of test objects, found an object"},

    // --- tools
    {"ToolsObject", R"({"id": "s", "tools": {}, "tests": [{"id": "a", "prompt": "x"}]})", "tools",
        "must be a list of tool objects"},
    {"ToolNotObject", R"({"id": "s", "tools": ["web_search"], "tests": [{"id": "a", "prompt": "x"}]})",
        "tools[0]", "must be an object"},
    {"ToolTypeMissing",
        R"({"id": "s", "tools": [{"function": {"name": "f"}}], "tests": [{"id": "a", "prompt": "x"}]})",
        "tools[0]", "\"type\" is missing"},
    {"ToolTypeWrong",
        R"({"id": "s", "tools": [{"type": "retrieval", "function": {"name": "f"}}], "tests": [{"id": "a", "prompt": "x"}]})",
        "tools[0].type", "must be \"function\", found a string (\"retrieval\")"},
    {"ToolFunctionMissing",
        R"({"id": "s", "tools": [{"type": "function"}], "tests": [{"id": "a", "prompt": "x"}]})", "tools[0]",
        "\"function\" is missing"},
    {"ToolFunctionString",
        R"({"id": "s", "tools": [{"type": "function", "function": "f"}], "tests": [{"id": "a", "prompt": "x"}]})",
        "tools[0].function", "must be an object with \"name\""},
    {"ToolNameMissing",
        R"({"id": "s", "tools": [{"type": "function", "function": {"parameters": {}}}], "tests": [{"id": "a", "prompt": "x"}]})",
        "tools[0].function", "\"name\" is missing"},
    {"ToolNameNumber",
        R"({"id": "s", "tools": [{"type": "function", "function": {"name": 1}}], "tests": [{"id": "a", "prompt": "x"}]})",
        "tools[0].function.name", "must be a string, found a number (1)"},
    {"ToolNameWithSpace",
        R"({"id": "s", "tools": [{"type": "function", "function": {"name": "web search"}}], "tests": [{"id": "a", "prompt": "x"}]})",
        "tools[0].function.name", "is not a valid function name"},
    {"ToolParametersList",
        R"({"id": "s", "tools": [{"type": "function", "function": {"name": "f", "parameters": []}}], "tests": [{"id": "a", "prompt": "x"}]})",
        "tools[0].function.parameters", "must be a JSON schema object"},
    {"ToolDefinedTwice",
        R"({"id": "s", "tools": [{"type": "function", "function": {"name": "f"}}, {"type": "function", "function": {"name": "f"}}], "tests": [{"id": "a", "prompt": "x"}]})",
        "tools[1].function.name", "is defined twice"},

    // --- defaults
    {"DefaultsList", R"({"id": "s", "defaults": [], "tests": [{"id": "a", "prompt": "x"}]})", "defaults",
        "must be an object"},
    {"DefaultsUnknownKey",
        R"({"id": "s", "defaults": {"max_token": 5}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.max_token", "did you mean \"max_tokens\"?"},
    {"DefaultsCamelCase",
        R"({"id": "s", "defaults": {"maxTokens": 5}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.maxTokens", "did you mean \"max_tokens\"?"},
    {"DefaultsWarmupPromptsMisplaced",
        R"({"id": "s", "defaults": {"warmup_prompts": ["x"]}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.warmup_prompts", "belongs at the top level"},
    {"MaxTokensZero", R"({"id": "s", "defaults": {"max_tokens": 0}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.max_tokens", "must be at least 1, found 0"},
    {"MaxTokensString",
        R"({"id": "s", "defaults": {"max_tokens": "256"}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.max_tokens", "must be a whole number, found a string (\"256\")"},
    {"MaxTokensFraction",
        R"({"id": "s", "defaults": {"max_tokens": 2.5}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.max_tokens", "must be a whole number, found a number (2.5)"},
    {"MaxTokensHuge",
        R"({"id": "s", "defaults": {"max_tokens": 99999999999999999999}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.max_tokens", "must be a whole number"},
    {"RunsZero", R"({"id": "s", "defaults": {"runs": 0}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.runs", "must be at least 1, found 0"},
    {"RunsNegative", R"({"id": "s", "defaults": {"runs": -3}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.runs", "must be at least 1, found -3"},
    {"WarmupNegative", R"({"id": "s", "defaults": {"warmup": -1}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.warmup", "must be at least 0, found -1"},
    {"WarmupBool", R"({"id": "s", "defaults": {"warmup": true}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.warmup", "must be a whole number, found a boolean (true)"},
    {"TemperatureTooHigh",
        R"({"id": "s", "defaults": {"temperature": 3}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.temperature", "must be from 0 to 2"},
    {"TemperatureNegative",
        R"({"id": "s", "defaults": {"temperature": -0.1}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.temperature", "must be from 0 to 2"},
    {"TemperatureString",
        R"({"id": "s", "defaults": {"temperature": "0"}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.temperature", "must be a number from 0 to 2, found a string"},
    {"SeedFloat", R"({"id": "s", "defaults": {"seed": 1.5}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.seed", "must be a whole number"},
    {"ThinkingString",
        R"({"id": "s", "defaults": {"thinking": "off"}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.thinking", "must be true or false, found a string (\"off\")"},
    {"ConcurrencyNumber",
        R"({"id": "s", "defaults": {"concurrency": 4}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.concurrency", "must be a list of concurrency levels"},
    {"ConcurrencyEmpty",
        R"({"id": "s", "defaults": {"concurrency": []}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.concurrency", "must list at least one level"},
    {"ConcurrencyZero",
        R"({"id": "s", "defaults": {"concurrency": [1, 0]}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.concurrency[1]", "must be at least 1, found 0"},
    {"ConcurrencyString",
        R"({"id": "s", "defaults": {"concurrency": [1, "2"]}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.concurrency[1]", "must be a whole number, found a string"},
    {"ConcurrencyTwice",
        R"({"id": "s", "defaults": {"concurrency": [1, 2, 2]}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.concurrency[2]", "level 2 is listed twice"},
    {"ExtraBodyString",
        R"({"id": "s", "defaults": {"extra_body": "{}"}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.extra_body", "must be an object, found a string"},

    // --- warm-up prompts
    {"WarmupPromptsString", R"({"id": "s", "warmup_prompts": "hi", "tests": [{"id": "a", "prompt": "x"}]})",
        "warmup_prompts", "must be a list of strings, found a string"},
    {"WarmupPromptsEmpty", R"({"id": "s", "warmup_prompts": [], "tests": [{"id": "a", "prompt": "x"}]})",
        "warmup_prompts", "must not be an empty list"},
    {"WarmupPromptNumber",
        R"({"id": "s", "warmup_prompts": ["ok", 3], "tests": [{"id": "a", "prompt": "x"}]})",
        "warmup_prompts[1]", "must be a string, found a number (3)"},
    {"WarmupPromptIsMeasured",
        R"({"id": "s", "warmup_prompts": ["Hello there"], "tests": [{"id": "a", "turns": ["x", "hello  THERE"]}]})",
        "warmup_prompts[0]", "is also a measured prompt of tests[0] (a)"},

    // --- tests: shape, ids, keys
    {"TestNotObject", R"({"id": "s", "tests": ["What is 2+2?"]})", "tests[0]", "must be a test object"},
    {"TestIdMissing", R"({"id": "s", "tests": [{"id": "a", "prompt": "x"}, {"prompt": "y"}]})", "tests[1]",
        "\"id\" is missing"},
    {"TestIdNumber", R"({"id": "s", "tests": [{"id": 1, "prompt": "x"}]})", "tests[0].id",
        "must be a string"},
    {"TestIdBadChars", R"({"id": "s", "tests": [{"id": "a/b", "prompt": "x"}]})", "tests[0].id",
        "is not a valid id"},
    {"DuplicateTestIds",
        R"({"id": "s", "tests": [{"id": "a", "prompt": "x"}, {"id": "b", "prompt": "y"}, {"id": "a", "prompt": "z"}]})",
        "tests[2].id", "\"a\" is already the id of tests[0]"},
    {"TestUnknownKeyTypo", R"({"id": "s", "tests": [{"id": "a", "promt": "x"}]})", "tests[0].promt",
        "did you mean \"prompt\"?"},
    {"TestUnknownKeyExpected", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expected": ["y"]}]})",
        "tests[0].expected", "did you mean \"expect\"?"},
    {"TestUnknownKeyUseTool",
        R"({"id": "s", )" TOOLS R"(, "tests": [{"id": "a", "prompt": "x", "use_tool": true}]})",
        "tests[0].use_tool", "did you mean \"use_tools\"?"},
    {"TestMisplacedSystem", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "system": "y"}]})",
        "tests[0].system", "the system prompt is suite-wide"},
    {"TestMisplacedConcurrency", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "concurrency": [1]}]})",
        "tests[0].concurrency", "belongs inside \"defaults\""},
    {"TestNameNumber", R"({"id": "s", "tests": [{"id": "a", "name": 2, "prompt": "x"}]})", "tests[0].name",
        "must be a string"},
    {"TestCategoryNull", R"({"id": "s", "tests": [{"id": "a", "category": null, "prompt": "x"}]})",
        "tests[0].category", "must be a string, found null"},

    // --- tests: what to send
    {"NothingToSend", R"({"id": "s", "tests": [{"id": "a"}]})", "tests[0]", "says nothing to send"},
    {"PromptAndTurns", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "turns": ["y"]}]})", "tests[0]",
        "gives \"prompt\" and \"turns\"; give only one"},
    {"PromptAndMessages",
        R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "messages": [{"role": "user", "content": "y"}]}]})",
        "tests[0]", "gives \"prompt\" and \"messages\""},
    {"TurnsAndMessages",
        R"({"id": "s", "tests": [{"id": "a", "turns": ["x"], "messages": [{"role": "user", "content": "y"}]}]})",
        "tests[0]", "gives \"turns\" and \"messages\""},
    {"PromptAndPromptTokens", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "prompt_tokens": 128}]})",
        "tests[0]", "gives \"prompt\" and \"prompt_tokens\""},
    {"PromptNumber", R"({"id": "s", "tests": [{"id": "a", "prompt": 42}]})", "tests[0].prompt",
        "must be a string, found a number (42)"},
    {"PromptEmpty", R"({"id": "s", "tests": [{"id": "a", "prompt": "   "}]})", "tests[0].prompt",
        "must not be empty"},
    {"PromptList", R"({"id": "s", "tests": [{"id": "a", "prompt": ["x"]}]})", "tests[0].prompt",
        "must be a string, found a list"},
    {"TurnsString", R"({"id": "s", "tests": [{"id": "a", "turns": "Hi"}]})", "tests[0].turns",
        "must be a list of strings, found a string"},
    {"TurnsEmpty", R"({"id": "s", "tests": [{"id": "a", "turns": []}]})", "tests[0].turns",
        "must not be an empty list"},
    {"TurnNotString", R"({"id": "s", "tests": [{"id": "a", "turns": ["Hi", {"role": "user"}]}]})",
        "tests[0].turns[1]", "must be a string, found an object"},
    {"TurnEmpty", R"({"id": "s", "tests": [{"id": "a", "turns": ["Hi", ""]}]})", "tests[0].turns[1]",
        "must not be empty"},
    {"MessagesObject", R"({"id": "s", "tests": [{"id": "a", "messages": {"role": "user"}}]})",
        "tests[0].messages", "must be a list of messages"},
    {"MessagesEmpty", R"({"id": "s", "tests": [{"id": "a", "messages": []}]})", "tests[0].messages",
        "must hold at least one message"},
    {"MessageString", R"({"id": "s", "tests": [{"id": "a", "messages": ["hi"]}]})", "tests[0].messages[0]",
        "must be a message object"},
    {"MessageRoleMissing", R"({"id": "s", "tests": [{"id": "a", "messages": [{"content": "hi"}]}]})",
        "tests[0].messages[0]", "\"role\" is missing"},
    {"MessageRoleNumber",
        R"({"id": "s", "tests": [{"id": "a", "messages": [{"role": 1, "content": "hi"}]}]})",
        "tests[0].messages[0].role", "must be a string"},
    {"MessageRoleUnknown",
        R"({"id": "s", "tests": [{"id": "a", "messages": [{"role": "human", "content": "hi"}]}]})",
        "tests[0].messages[0].role", "\"human\" is not a role"},
    {"MessageContentNumber",
        R"({"id": "s", "tests": [{"id": "a", "messages": [{"role": "user", "content": 5}]}]})",
        "tests[0].messages[0].content", "must be a string or a list of content parts"},
    {"MessageContentMissing", R"({"id": "s", "tests": [{"id": "a", "messages": [{"role": "user"}]}]})",
        "tests[0].messages[0]", "\"content\" is missing"},
    {"MessageContentPartString",
        R"({"id": "s", "tests": [{"id": "a", "messages": [{"role": "user", "content": ["hi"]}]}]})",
        "tests[0].messages[0].content[0]", "must be a content part object"},
    {"MessageToolCallsOnUser",
        R"({"id": "s", "tests": [{"id": "a", "messages": [{"role": "user", "content": "x", "tool_calls": []}]}]})",
        "tests[0].messages[0].tool_calls", "only in an assistant message"},
    {"MessagesEndWithAssistant",
        R"({"id": "s", "tests": [{"id": "a", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]}]})",
        "tests[0].messages[1]", "the last message must be from the user"},
    {"PromptTokensZero", R"({"id": "s", "tests": [{"id": "a", "prompt_tokens": 0}]})",
        "tests[0].prompt_tokens", "must be at least 1, found 0"},
    {"PromptTokensString", R"({"id": "s", "tests": [{"id": "a", "prompt_tokens": "128"}]})",
        "tests[0].prompt_tokens", "must be a whole number"},
    {"IgnoreEosString", R"({"id": "s", "tests": [{"id": "a", "prompt_tokens": 128, "ignore_eos": "yes"}]})",
        "tests[0].ignore_eos", "must be true or false"},

    // --- tests: tools and expectations
    {"UseToolsWithoutTools", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "use_tools": true}]})",
        "tests[0].use_tools", "the suite defines no tools"},
    {"UseToolsString",
        R"({"id": "s", )" TOOLS R"(, "tests": [{"id": "a", "prompt": "x", "use_tools": "yes"}]})",
        "tests[0].use_tools", "must be true or false, found a string"},
    {"ExpectToolUnknownTool",
        R"({"id": "s", )" TOOLS
        R"(, "tests": [{"id": "a", "prompt": "x", "use_tools": true, "expect_tool": {"name": "search_memory"}}]})",
        "tests[0].expect_tool.name",
        "\"search_memory\" is not one of the suite's tools; the suite's tools are: web_search"},
    {"ExpectToolWithoutAnyTools",
        R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect_tool": {"name": "f"}}]})",
        "tests[0].expect_tool.name", "the suite defines no tools"},
    {"ExpectToolWithoutUseTools",
        R"({"id": "s", )" TOOLS
        R"(, "tests": [{"id": "a", "prompt": "x", "expect_tool": {"name": "web_search"}}]})",
        "tests[0].expect_tool", "needs \"use_tools\": true"},
    {"ExpectToolNameMissing",
        R"({"id": "s", )" TOOLS
        R"(, "tests": [{"id": "a", "prompt": "x", "use_tools": true, "expect_tool": {"required": ["q"]}}]})",
        "tests[0].expect_tool", "\"name\" is missing"},
    {"ExpectToolNumber",
        R"({"id": "s", )" TOOLS
        R"(, "tests": [{"id": "a", "prompt": "x", "use_tools": true, "expect_tool": 1}]})",
        "tests[0].expect_tool", "must be an object like"},
    {"ExpectToolRequiredString",
        R"({"id": "s", )" TOOLS
        R"(, "tests": [{"id": "a", "prompt": "x", "use_tools": true, "expect_tool": {"name": "web_search", "required": "query"}}]})",
        "tests[0].expect_tool.required", "must be a list of strings (argument names), found a string"},
    {"ExpectToolRequiredNumber",
        R"({"id": "s", )" TOOLS
        R"(, "tests": [{"id": "a", "prompt": "x"}, {"id": "b", "prompt": "x"}, {"id": "c", "prompt": "y", "use_tools": true, "expect_tool": {"name": "web_search", "required": 5}}]})",
        "tests[2].expect_tool.required", "must be a list of strings (argument names), found a number (5)"},
    {"ExpectToolRequiredItem",
        R"({"id": "s", )" TOOLS
        R"(, "tests": [{"id": "a", "prompt": "x", "use_tools": true, "expect_tool": {"name": "web_search", "required": ["query", null]}}]})",
        "tests[0].expect_tool.required[1]", "must be a string, found null"},
    {"ExpectToolUnknownKey",
        R"({"id": "s", )" TOOLS
        R"(, "tests": [{"id": "a", "prompt": "x", "use_tools": true, "expect_tool": {"name": "web_search", "requried": ["query"]}}]})",
        "tests[0].expect_tool.requried", "did you mean \"required\"?"},
    {"ExpectNoToolAndExpectTool",
        R"({"id": "s", )" TOOLS
        R"(, "tests": [{"id": "a", "prompt": "x", "use_tools": true, "expect_tool": "web_search", "expect_no_tool": true}]})",
        "tests[0].expect_no_tool", "contradicts \"expect_tool\""},
    {"ExpectNoToolString", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect_no_tool": "true"}]})",
        "tests[0].expect_no_tool", "must be true or false"},
    {"ExpectNumber", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect": 15}]})", "tests[0].expect",
        "must be a string or a list of strings, found a number (15)"},
    {"ExpectItemNumber", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect": ["fifteen", 15]}]})",
        "tests[0].expect[1]", "must be a string, found a number (15)"},
    {"ExpectEmptyString", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect": [""]}]})",
        "tests[0].expect[0]", "must not be empty"},
    {"ExpectBadRegex",
        R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect": ["ok", "/(unclosed/"]}]})",
        "tests[0].expect[1]", "is not a valid regular expression"},
    {"ExpectBadRegexSingle", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect": "/[a-/"}]})",
        "tests[0].expect", "is not a valid regular expression"},
    {"ExpectEmptyRegex", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect": ["//"]}]})",
        "tests[0].expect[0]", "is an empty regular expression"},
    {"ExpectRegexFlags", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect": ["/tokyo/i"]}]})",
        "tests[0].expect[0]", "flags after the closing '/' are not supported"},
    {"MaxWordsZero", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "max_words": 0}]})",
        "tests[0].max_words", "must be at least 1, found 0"},
    {"MaxSentencesString", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "max_sentences": "2"}]})",
        "tests[0].max_sentences", "must be a whole number"},
    {"ExpectLengthNumber", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect_length": 40}]})",
        "tests[0].expect_length", "must be an object like"},
    {"ExpectLengthUnknownKey",
        R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect_length": {"max_word": 40}}]})",
        "tests[0].expect_length.max_word", "did you mean \"max_words\"?"},
    {"ExpectLengthNegative",
        R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "expect_length": {"max_sentences": -1}}]})",
        "tests[0].expect_length.max_sentences", "must be at least 1"},
    {"LengthGivenTwice",
        R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "max_words": 10, "expect_length": {"max_words": 20}}]})",
        "tests[0].expect_length.max_words", "give it once"},

    // --- tests: overrides
    {"TestMaxTokensZero", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "max_tokens": 0}]})",
        "tests[0].max_tokens", "must be at least 1"},
    {"TestRunsZero",
        R"({"id": "s", "tests": [{"id": "a", "prompt": "x"}, {"id": "b", "prompt": "y", "runs": 0}]})",
        "tests[1].runs", "must be at least 1, found 0"},
    {"TestWarmupNegative", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "warmup": -2}]})",
        "tests[0].warmup", "must be at least 0, found -2"},
    {"TestTemperatureNull", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "temperature": null}]})",
        "tests[0].temperature", "must be a number from 0 to 2, found null"},
    {"TestTemperatureTooHigh", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "temperature": 2.01}]})",
        "tests[0].temperature", "must be from 0 to 2"},
    {"TestSeedString", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "seed": "42"}]})", "tests[0].seed",
        "must be a whole number, found a string"},
    {"TestThinkingNumber", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "thinking": 0}]})",
        "tests[0].thinking", "must be true or false, found a number (0)"},
    {"TestExtraBodyList", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "extra_body": []}]})",
        "tests[0].extra_body", "must be an object, found an empty list"},

    // --- fidelity
    {"FidelityString", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "fidelity": "yes"}]})",
        "tests[0].fidelity", "must be true or false, found a string"},
    {"FidelityTypo", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "fidelty": true}]})",
        "tests[0].fidelty", "unknown key; did you mean \"fidelity\"?"},
    {"DefaultsFidelityNumber",
        R"({"id": "s", "defaults": {"fidelity": 1}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.fidelity", "must be true or false, found a number (1)"},
    {"FidelityAtTopLevel", R"({"id": "s", "fidelity": true, "tests": [{"id": "a", "prompt": "x"}]})",
        "fidelity", "belongs inside \"defaults\""},
    {"FidelityWithTemperature",
        R"({"id": "s", "tests": [{"id": "a", "prompt": "x"}, {"id": "b", "prompt": "y", "fidelity": true, "temperature": 0.7}]})",
        "tests[1].temperature", "fidelity tests are greedy: temperature 0"},
    {"FidelityByDefaultsWithTemperature",
        R"({"id": "s", "defaults": {"fidelity": true}, "tests": [{"id": "a", "prompt": "x", "temperature": 1}]})",
        "tests[0].temperature", "is 1 but this is a fidelity test"},
    {"FidelityUnderWarmDefaults",
        R"({"id": "s", "defaults": {"temperature": 0.6}, "tests": [{"id": "a", "prompt": "x", "fidelity": true}]})",
        "tests[0]", "\"defaults\" sets temperature 0.6; give this test \"temperature\": 0"},
    {"TopLogprobsAboveTwenty",
        R"({"id": "s", "defaults": {"top_logprobs": 21}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.top_logprobs",
        "must be at most 20, found 21: servers refuse more by default (vLLM answers "
        "400 unless started with a higher --max-logprobs)"},
    {"TopLogprobsZero",
        R"({"id": "s", "defaults": {"top_logprobs": 0}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.top_logprobs", "must be at least 1, found 0"},
    {"TopLogprobsString",
        R"({"id": "s", "defaults": {"top_logprobs": "20"}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.top_logprobs", "must be a whole number, found a string"},
    {"TopLogprobsTypo",
        R"({"id": "s", "defaults": {"top_logprob": 5}, "tests": [{"id": "a", "prompt": "x"}]})",
        "defaults.top_logprob", "did you mean \"top_logprobs\"?"},
    {"TopLogprobsInATest", R"({"id": "s", "tests": [{"id": "a", "prompt": "x", "top_logprobs": 5}]})",
        "tests[0].top_logprobs", "belongs inside \"defaults\""},
};

class SuiteErrors : public ::testing::TestWithParam<BadSuite> { };

TEST_P(SuiteErrors, NamesThePathAndTheProblem)
{
    const BadSuite& b = GetParam();
    nlohmann::json json;
    ASSERT_NO_THROW(json = nlohmann::json::parse(b.json)) << "fixture is not JSON: " << b.json;
    const std::string message = errorOf(json, QStringLiteral("bad.json"));
    const std::string prefix = std::string("bad.json: ") + b.path + ": ";
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << "message: " << message << "\nexpected prefix: " << prefix;
    EXPECT_NE(message.find(b.problem), std::string::npos)
        << "message: " << message << "\nexpected: " << b.problem;
}

INSTANTIATE_TEST_SUITE_P(Malformed, SuiteErrors, ::testing::ValuesIn(badSuites),
    [](const ::testing::TestParamInfo<BadSuite>& p) { return std::string(p.param.name); });

} // namespace

TEST(SuiteErrorsExtra, UnknownKeysAreRejectedInEveryBuiltinPlace)
{
    // A valid suite plus one stray key at each checked level: never silently ignored.
    const nlohmann::json base = nlohmann::json::parse(R"({"id": "s", )" TOOLS R"(,
        "defaults": {"runs": 1},
        "tests": [{"id": "a", "prompt": "x", "use_tools": true, "expect_tool": {"name": "web_search"},
                   "expect_length": {"max_words": 3}}]})");
    ASSERT_NO_THROW(parseSuite(base, QStringLiteral("t")));
    const std::vector<nlohmann::json::json_pointer> places
        = {nlohmann::json::json_pointer(""), nlohmann::json::json_pointer("/defaults"),
            nlohmann::json::json_pointer("/tests/0"), nlohmann::json::json_pointer("/tests/0/expect_tool"),
            nlohmann::json::json_pointer("/tests/0/expect_length")};
    for (const auto& place : places) {
        nlohmann::json j = base;
        j[place]["bogus_key"] = 1;
        const std::string message = errorOf(j, QStringLiteral("t"));
        EXPECT_NE(message.find("bogus_key: unknown key"), std::string::npos)
            << place.to_string() << ": " << message;
    }
}

TEST(SuiteErrorsExtra, NonFiniteAndProgrammaticValuesDoNotCrash)
{
    nlohmann::json j = nlohmann::json::parse(R"({"id": "s", "tests": [{"id": "a", "prompt": "x"}]})");
    j["defaults"]["temperature"] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_NE(errorOf(j).find("defaults.temperature"), std::string::npos);
    j["defaults"]["temperature"] = std::numeric_limits<double>::infinity();
    EXPECT_NE(errorOf(j).find("defaults.temperature"), std::string::npos);
    j["defaults"].erase("temperature");
    j["defaults"]["runs"] = std::numeric_limits<double>::infinity();
    EXPECT_NE(errorOf(j).find("defaults.runs: must be a whole number"), std::string::npos);
    j["defaults"]["runs"] = std::numeric_limits<std::uint64_t>::max();
    EXPECT_NE(errorOf(j).find("defaults.runs: must be a whole number"), std::string::npos);
    j["defaults"]["runs"] = nlohmann::json::binary({1, 2, 3});
    EXPECT_NE(errorOf(j).find("defaults.runs"), std::string::npos);
}

TEST(SuiteErrorsExtra, InvalidUtf8BuiltInMemoryIsRefused)
{
    nlohmann::json j = nlohmann::json::parse(R"({"id": "s", "tests": [{"id": "a", "prompt": "x"}]})");
    j["tests"][0]["prompt"] = std::string("bad \xff\xfe text");
    EXPECT_NE(errorOf(j).find("cannot be stored as JSON"), std::string::npos);
}

TEST(SuiteErrorsExtra, DeepNestingBuiltInMemoryIsRefused)
{
    nlohmann::json j = nlohmann::json::parse(R"({"id": "s", "tests": [{"id": "a", "prompt": "x"}]})");
    nlohmann::json deep = nlohmann::json::array();
    for (int i = 0; i < 5000; ++i) {
        nlohmann::json outer = nlohmann::json::array();
        outer.push_back(std::move(deep));
        deep = std::move(outer);
    }
    j["defaults"]["extra_body"]["x"] = std::move(deep);
    EXPECT_NE(errorOf(j).find("nested more than"), std::string::npos);
}

TEST(SuiteErrorsExtra, ErrorsNameTheSource)
{
    const auto j = nlohmann::json::parse(R"({"id": "s", "tests": []})");
    EXPECT_EQ(errorOf(j, QStringLiteral("/home/me/suites/v3.json")),
        "/home/me/suites/v3.json: tests: is empty; a suite needs at least one test");
}
