// Timing on the GPU: a PROBE_SCOPE per step, ops timed with CUDA events resolved off the hot
// path (their device durations appear as a "GPU" track in the Chrome trace), NVTX ranges for
// Nsight Systems, and the metric line.
//
//   PROBE_FLAGS="--probe_timing_summary --probe_trace_to=/tmp/gpu_trace.json" ./cuda_timing_nvtx
#include <probe/probe.hpp>

#include "cuda_check.hpp"

__global__ void busy(float* y, int n, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = y[i];
  for (int r = 0; r < rounds; ++r) v = v * 0.999f + 0.001f;
  y[i] = v;
}

int main(int argc, char** argv) {
  probe::init(argc, argv);
  require_cuda_device("cuda_timing_nvtx");
  const int n = 1 << 20;
  float* y = nullptr;
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(y, 0, n * sizeof(float)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  probe::timer t;
  const int steps = 20;
  for (int step = 0; step < steps; ++step) {
    PROBE_SCOPE("step");
    probe::op op("busy", "Compute");
    op.output_at_end("y", probe::view(y, {n}).on_cuda(0, s));  // the stream op timing follows
    busy<<<(n + 255) / 256, 256, 0, s>>>(y, n, 200);
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  t.stop();
  probe::metric("Gelem_per_s", static_cast<double>(n) * steps / t.elapsed() / 1e9);
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(y));
  return 0;
}
