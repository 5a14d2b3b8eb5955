// SPDX-License-Identifier: MIT
#pragma once

// /metrics pages in the shapes the servers and exporters really write (names, labels, number
// formats, _created families, # EOF), from ../shared/reference/server-metrics-and-logprobs.md
// Part 1. Values are illustrative.

namespace qs::fixtures {

// llama-server: no labels, std::ostream default formatting (6 significant digits).
inline constexpr const char* LlamaPage
    = R"(# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 1.23457e+06
# HELP llamacpp:prompt_seconds_total Prompt process time
# TYPE llamacpp:prompt_seconds_total counter
llamacpp:prompt_seconds_total 312.482
# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 48213
# HELP llamacpp:tokens_predicted_seconds_total Predict process time
# TYPE llamacpp:tokens_predicted_seconds_total counter
llamacpp:tokens_predicted_seconds_total 1205.77
# HELP llamacpp:n_decode_total Total number of llama_decode() calls
# TYPE llamacpp:n_decode_total counter
llamacpp:n_decode_total 50112
# HELP llamacpp:n_busy_slots_per_decode Average number of busy slots per llama_decode() call
# TYPE llamacpp:n_busy_slots_per_decode gauge
llamacpp:n_busy_slots_per_decode 1.53186
# HELP llamacpp:prompt_tokens_seconds Average prompt throughput in tokens/s.
# TYPE llamacpp:prompt_tokens_seconds gauge
llamacpp:prompt_tokens_seconds 3950.81
# HELP llamacpp:predicted_tokens_seconds Average generation throughput in tokens/s.
# TYPE llamacpp:predicted_tokens_seconds gauge
llamacpp:predicted_tokens_seconds 39.9854
# HELP llamacpp:requests_processing Number of requests processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 2
# HELP llamacpp:requests_deferred Number of requests deferred.
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 1
)";

// vLLM 0.0.4 (client_python, single process): counters with _total in TYPE, _created gauge
// families, labels engine and model_name, histograms with their own _created family.
inline constexpr const char* VllmPage004
    = R"(# HELP python_gc_objects_collected_total Objects collected during gc
# TYPE python_gc_objects_collected_total counter
python_gc_objects_collected_total{generation="0"} 12378.0
python_gc_objects_collected_total{generation="1"} 1501.0
# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 2.147483648e+09
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="Qwen/Qwen3-8B"} 3.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="Qwen/Qwen3-8B"} 1.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="Qwen/Qwen3-8B"} 0.0421875
# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="Qwen/Qwen3-8B"} 0.0
# HELP vllm:num_preemptions_created Cumulative number of preemption from the engine.
# TYPE vllm:num_preemptions_created gauge
vllm:num_preemptions_created{engine="0",model_name="Qwen/Qwen3-8B"} 1.7250123456789e+09
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="Qwen/Qwen3-8B"} 1.234567e+06
# HELP vllm:prompt_tokens_created Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_created gauge
vllm:prompt_tokens_created{engine="0",model_name="Qwen/Qwen3-8B"} 1.7250123456789e+09
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="Qwen/Qwen3-8B"} 98765.0
# HELP vllm:generation_tokens_created Number of generation tokens processed.
# TYPE vllm:generation_tokens_created gauge
vllm:generation_tokens_created{engine="0",model_name="Qwen/Qwen3-8B"} 1.7250123456789e+09
# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="Qwen/Qwen3-8B"} 120.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="Qwen/Qwen3-8B"} 8.0
vllm:request_success_total{engine="0",finished_reason="abort",model_name="Qwen/Qwen3-8B"} 0.0
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.001",model_name="Qwen/Qwen3-8B"} 0.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.005",model_name="Qwen/Qwen3-8B"} 0.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.01",model_name="Qwen/Qwen3-8B"} 0.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.02",model_name="Qwen/Qwen3-8B"} 0.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.04",model_name="Qwen/Qwen3-8B"} 10.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.06",model_name="Qwen/Qwen3-8B"} 40.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.08",model_name="Qwen/Qwen3-8B"} 80.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="Qwen/Qwen3-8B"} 100.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.25",model_name="Qwen/Qwen3-8B"} 120.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.5",model_name="Qwen/Qwen3-8B"} 126.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.75",model_name="Qwen/Qwen3-8B"} 128.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="1.0",model_name="Qwen/Qwen3-8B"} 128.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="Qwen/Qwen3-8B"} 128.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="Qwen/Qwen3-8B"} 128.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="Qwen/Qwen3-8B"} 10.24
# HELP vllm:time_to_first_token_seconds_created Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds_created gauge
vllm:time_to_first_token_seconds_created{engine="0",model_name="Qwen/Qwen3-8B"} 1.7250123456789e+09
# HELP vllm:iteration_tokens_total Histogram of number of tokens per engine_step.
# TYPE vllm:iteration_tokens_total histogram
vllm:iteration_tokens_total_bucket{engine="0",le="1.0",model_name="Qwen/Qwen3-8B"} 5.0
vllm:iteration_tokens_total_bucket{engine="0",le="+Inf",model_name="Qwen/Qwen3-8B"} 9.0
vllm:iteration_tokens_total_count{engine="0",model_name="Qwen/Qwen3-8B"} 9.0
vllm:iteration_tokens_total_sum{engine="0",model_name="Qwen/Qwen3-8B"} 77.0
# HELP vllm:iteration_tokens_total_created Histogram of number of tokens per engine_step.
# TYPE vllm:iteration_tokens_total_created gauge
vllm:iteration_tokens_total_created{engine="0",model_name="Qwen/Qwen3-8B"} 1.7250123456789e+09
)";

// vLLM asked for OpenMetrics: counters named without _total on TYPE, _created inside the
// family, # EOF.
inline constexpr const char* VllmPageOpenMetrics
    = R"(# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="Qwen/Qwen3-8B"} 3.0
# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{engine="0",model_name="Qwen/Qwen3-8B"} 0.25
# HELP vllm:prompt_tokens Number of prefill tokens processed.
# TYPE vllm:prompt_tokens counter
vllm:prompt_tokens_total{engine="0",model_name="Qwen/Qwen3-8B"} 1.234567e+06
vllm:prompt_tokens_created{engine="0",model_name="Qwen/Qwen3-8B"} 1.7250123456789e+09
# HELP vllm:generation_tokens Number of generation tokens processed.
# TYPE vllm:generation_tokens counter
vllm:generation_tokens_total{engine="0",model_name="Qwen/Qwen3-8B"} 98765.0
vllm:generation_tokens_created{engine="0",model_name="Qwen/Qwen3-8B"} 1.7250123456789e+09
# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{engine="0",le="0.3",model_name="Qwen/Qwen3-8B"} 0.0
vllm:e2e_request_latency_seconds_bucket{engine="0",le="1.0",model_name="Qwen/Qwen3-8B"} 2.0 # {trace_id="oHg5SJYRHA0"} 0.67 1.7250123e+09
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="Qwen/Qwen3-8B"} 4.0
vllm:e2e_request_latency_seconds_count{engine="0",model_name="Qwen/Qwen3-8B"} 4.0
vllm:e2e_request_latency_seconds_sum{engine="0",model_name="Qwen/Qwen3-8B"} 7.5
vllm:e2e_request_latency_seconds_created{engine="0",model_name="Qwen/Qwen3-8B"} 1.7250123456789e+09
# EOF
)";

// SGLang (multiprocess mode: no _created; gauges without a mode carry a pid label).
inline constexpr const char* SglangPage = R"(# HELP sglang:num_running_reqs The number of running requests.
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{engine_type="unified",model_name="meta-llama/Llama-3.1-8B-Instruct",moe_ep_rank="0",pp_rank="0",tp_rank="0"} 4.0
# HELP sglang:num_queue_reqs The number of requests in the waiting queue.
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{engine_type="unified",model_name="meta-llama/Llama-3.1-8B-Instruct",moe_ep_rank="0",pp_rank="0",tp_rank="0"} 2.0
# HELP sglang:token_usage The token usage.
# TYPE sglang:token_usage gauge
sglang:token_usage{engine_type="unified",model_name="meta-llama/Llama-3.1-8B-Instruct",moe_ep_rank="0",pp_rank="0",tp_rank="0"} 0.12
# HELP sglang:num_retracted_reqs The number of retracted requests.
# TYPE sglang:num_retracted_reqs gauge
sglang:num_retracted_reqs{engine_type="unified",model_name="meta-llama/Llama-3.1-8B-Instruct",moe_ep_rank="0",pid="4242",pp_rank="0",tp_rank="0"} 0.0
# HELP sglang:gen_throughput The generation throughput (token/s).
# TYPE sglang:gen_throughput gauge
sglang:gen_throughput{engine_type="unified",model_name="meta-llama/Llama-3.1-8B-Instruct",moe_ep_rank="0",pp_rank="0",tp_rank="0"} 812.5
# HELP sglang:prompt_tokens_total Number of prefill tokens processed.
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 51200.0
# HELP sglang:generation_tokens_total Number of generation tokens processed.
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 25600.0
# HELP sglang:cached_tokens_total Number of cached prompt tokens.
# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 1024.0
# HELP sglang:queue_time_seconds Histogram of queueing time in seconds.
# TYPE sglang:queue_time_seconds histogram
sglang:queue_time_seconds_bucket{le="0.0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 10.0
sglang:queue_time_seconds_bucket{le="0.1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 50.0
sglang:queue_time_seconds_bucket{le="+Inf",model_name="meta-llama/Llama-3.1-8B-Instruct"} 50.0
sglang:queue_time_seconds_count{model_name="meta-llama/Llama-3.1-8B-Instruct"} 50.0
sglang:queue_time_seconds_sum{model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.25
)";

// dcgm-exporter ≤ 4.8: counter without _total, full label set, two GPUs.
inline constexpr const char* DcgmPage = R"(# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-5fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f50",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 43
DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-6fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f51",pci_bus_id="00000000:1B:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 47
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-5fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f50",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 312.456000
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-6fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f51",pci_bus_id="00000000:1B:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 87.544000
# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).
# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="GPU-5fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f50",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 4000000
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="1",UUID="GPU-6fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f51",pci_bus_id="00000000:1B:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 9223372036854775794
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-5fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f50",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 90
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-6fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f51",pci_bus_id="00000000:1B:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 10
# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).
# TYPE DCGM_FI_DEV_FB_FREE gauge
DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-5fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f50",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 1024
DCGM_FI_DEV_FB_FREE{gpu="1",UUID="GPU-6fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f51",pci_bus_id="00000000:1B:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 2048
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-5fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f50",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 80000
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-6fd4e6b0-1b0c-4b5e-9c5a-1f0c2d3e4f51",pci_bus_id="00000000:1B:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="535.129.03"} 1000
)";

// node exporter's meminfo collector (kB × 1024), DGX Spark-sized.
inline constexpr const char* NodePage
    = R"(# HELP node_memory_MemAvailable_bytes Memory information field MemAvailable_bytes.
# TYPE node_memory_MemAvailable_bytes gauge
node_memory_MemAvailable_bytes 6.8719476736e+10
# HELP node_memory_MemFree_bytes Memory information field MemFree_bytes.
# TYPE node_memory_MemFree_bytes gauge
node_memory_MemFree_bytes 3.4359738368e+10
# HELP node_memory_Cached_bytes Memory information field Cached_bytes.
# TYPE node_memory_Cached_bytes gauge
node_memory_Cached_bytes 2.147483648e+10
# HELP node_memory_Active_anon_bytes Memory information field Active_anon_bytes.
# TYPE node_memory_Active_anon_bytes gauge
node_memory_Active_anon_bytes 1.073741824e+10
# HELP node_memory_HugePages_Total Memory information field HugePages_Total.
# TYPE node_memory_HugePages_Total gauge
node_memory_HugePages_Total 0
# HELP node_memory_MemTotal_bytes Memory information field MemTotal_bytes.
# TYPE node_memory_MemTotal_bytes gauge
node_memory_MemTotal_bytes 1.28849018880e+11
)";

} // namespace qs::fixtures
