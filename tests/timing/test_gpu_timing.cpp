// Device op timing and profiler ranges, run against a CPU fake of the device runtime: the
// same pool and listener code that drives CUDA events and NVTX in CUDA builds.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <stdlib.h>
#include <sys/wait.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../support/capture.hpp"

namespace {

// Streams run queued work on one device clock (milliseconds). Events are stamped when the
// stream reaches them and happen only when the test says the stream got there.
class fake_gpu final : public probe::detail::gpu_event_api {
 public:
  struct event {
    double at_ms = 0;
    void* stream = nullptr;
    bool recorded = false, done = false, destroyed = false;
  };
  std::vector<event*> events;
  std::map<void*, double> tail_ms;  // where each stream's queued work ends
  int creates = 0, destroys = 0, waits = 0;
  bool fail_create = false;

  ~fake_gpu() override {
    for (event* e : events) delete e;
  }
  void* create_event(int) noexcept override {
    if (fail_create) return nullptr;
    ++creates;
    events.push_back(new event());
    return events.back();
  }
  void destroy_event(void* e) noexcept override {
    ++destroys;
    static_cast<event*>(e)->destroyed = true;
  }
  bool record(void* e, void* stream) noexcept override {
    auto* x = static_cast<event*>(e);
    x->at_ms = tail_ms[stream];
    x->stream = stream;
    x->recorded = true;
    x->done = false;
    return true;
  }
  int query(void* e) noexcept override { return static_cast<event*>(e)->done ? 1 : 0; }
  bool wait(void* e) noexcept override {
    ++waits;
    static_cast<event*>(e)->done = true;
    return true;
  }
  bool elapsed_ms(void* a, void* b, float* ms) noexcept override {
    auto *x = static_cast<event*>(a), *y = static_cast<event*>(b);
    if (!x->done || !y->done) return false;
    *ms = static_cast<float>(y->at_ms - x->at_ms);  // float, as the CUDA runtime reports it
    return true;
  }
  const char* last_error() noexcept override { return "fake device error"; }

  void launch(void* stream, double ms) { tail_ms[stream] += ms; }
  void set_clock(void* stream, double ms) { tail_ms[stream] = ms; }
  void finish(void* stream) {
    for (event* e : events)
      if (e->stream == stream && e->recorded) e->done = true;
  }
};

void* const s1 = reinterpret_cast<void*>(0x1000);
void* const s2 = reinterpret_cast<void*>(0x2000);

probe::detail::gpu_op_desc desc(const char* name) {
  probe::detail::gpu_op_desc d;
  d.name = name;
  return d;
}

std::vector<std::string> g_ranges;
int g_depth = 0;
void fake_push(const char* name) noexcept {
  g_ranges.push_back(name);
  ++g_depth;
}
void fake_pop() noexcept { --g_depth; }
const probe::detail::range_hooks fake_hooks{&fake_push, &fake_pop};

}  // namespace

TEST_CASE("gpu timing: resolved lazily, never waited for while running") {
  fake_gpu gpu;
  probe::detail::gpu_event_pool pool(gpu, 0, 4096);
  gpu.set_clock(s1, 0);
  const uint32_t t = pool.begin(s1, 1000);
  REQUIRE(t != 0);
  gpu.launch(s1, 2.5);
  pool.end(t, desc("k"));
  pool.resolve(false);
  std::vector<probe::detail::gpu_op_timing> out;
  pool.collect(out);
  CHECK(out.empty());  // the stream has not got there yet
  CHECK(pool.pending() == 1);
  gpu.finish(s1);
  pool.resolve(false);
  pool.collect(out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].op.name == "k");
  CHECK(out[0].dur_ns == 2500000);
  CHECK(out[0].begin_ns == 1000);  // the reference was recorded with it, at host time 1000
  CHECK(out[0].op.stream == s1);
  CHECK(pool.pending() == 0);
  CHECK(gpu.waits == 0);
}

TEST_CASE("gpu timing: device time lands on the host timeline, precisely, after an hour") {
  fake_gpu gpu;
  probe::detail::gpu_event_pool pool(gpu, 0, 4096);
  std::vector<probe::detail::gpu_op_timing> out;
  // Device clock == host clock here; one op every 0.7 s of host time for an hour.
  for (int64_t host_ms = 0; host_ms <= 3600000; host_ms += 700) {
    gpu.set_clock(s1, static_cast<double>(host_ms) + 0.25);  // queued 0.25 ms behind the host
    const uint32_t t = pool.begin(s1, host_ms * 1000000);
    REQUIRE(t != 0);
    gpu.launch(s1, 1.0);
    pool.end(t, desc("step"));
    gpu.finish(s1);
    pool.resolve(false);
  }
  pool.collect(out);
  REQUIRE(out.size() == 3600000 / 700 + 1);
  const auto& last = out.back();
  // Every op starts 0.25 ms of queueing after its host time, and so did the first reference:
  // placed from it, each op lands on its host time, with no float drift over the hour.
  const int64_t last_host_ns = static_cast<int64_t>(3600000 / 700) * 700 * 1000000;
  CHECK(std::llabs(last.begin_ns - last_host_ns) < 1000);
  CHECK(std::llabs(last.dur_ns - 1000000) < 1000);
  CHECK(pool.live_references() <= 3);  // old references are released
  CHECK(gpu.waits == 0);
}

TEST_CASE("gpu timing: a full pool drops timings instead of blocking; pairs are reused") {
  fake_gpu gpu;
  probe::detail::gpu_event_pool pool(gpu, 0, 16);
  std::vector<uint32_t> tickets;
  for (int i = 0; i < 20; ++i) {
    const uint32_t t = pool.begin(s1, 0);
    gpu.launch(s1, 1);
    if (t) pool.end(t, desc("q"));
    tickets.push_back(t);
  }
  CHECK(pool.dropped() == 4);
  CHECK(pool.pairs() == 16);
  CHECK(gpu.waits == 0);
  gpu.finish(s1);
  const uint32_t again = pool.begin(s1, 0);  // resolving frees the pairs that completed
  CHECK(again != 0);
  std::vector<probe::detail::gpu_op_timing> out;
  pool.collect(out);
  CHECK(out.size() == 16);

  probe::detail::gpu_event_pool reuse(gpu, 0, 4096);
  for (int i = 0; i < 1000; ++i) {
    const uint32_t t = reuse.begin(s2, 0);
    gpu.launch(s2, 0.01);
    reuse.end(t, desc("r"));
    gpu.finish(s2);
  }
  CHECK(reuse.pairs() <= 32);
}

TEST_CASE("gpu timing: the exit resolution waits; errors turn timing off") {
  fake_gpu gpu;
  probe::detail::gpu_event_pool pool(gpu, 0, 4096);
  for (int i = 0; i < 3; ++i) {
    const uint32_t t = pool.begin(s1, 0);
    gpu.launch(s1, 1);
    pool.end(t, desc("w"));
  }
  CHECK(pool.pending() == 3);
  pool.resolve(true);
  CHECK(pool.pending() == 0);
  CHECK(gpu.waits > 0);

  fake_gpu broken;
  broken.fail_create = true;
  probe::detail::gpu_event_pool none(broken, 0, 4096);
  CHECK(none.begin(s1, 0) == 0);
  CHECK(none.failed());
  CHECK(none.dropped() == 0);  // off, not full
}

TEST_CASE("gpu timing: ops with device tensors get device timings in summary and trace") {
  fake_gpu gpu;
  probe_test::temp_dir dir;
  const std::string path = dir / "gpu.json";
  probe::detail::set_gpu_backend(&gpu, &fake_hooks);
  probe::set_flags(("--probe_trace_to=" + path).c_str());
  probe::detail::timing_reset();
  g_ranges.clear();
  float dev[8] = {};
  for (int i = 0; i < 3; ++i) {
    PROBE_SCOPE("g_step");
    probe::op op("g_matmul", "MatMul");
    op.input("a", probe::view(dev, {2, 4}).on_cuda(0, s1));
    gpu.launch(s1, 3.0);
    op.output("c", probe::view(dev, 8).on_cuda(0, s1));
  }
  {
    probe::op host_only("g_host");  // no device tensor: no device timing
  }
  gpu.finish(s1);
  uint64_t count = 0;
  double total = 0;
  REQUIRE(probe::detail::timing_lookup("g_matmul", 'g', &count, &total));
  CHECK(count == 3);
  CHECK(total == doctest::Approx(9e6));
  CHECK_FALSE(probe::detail::timing_lookup("g_host", 'g', &count, &total));
  CHECK(gpu.waits == 0);

  // Profiler ranges: one per scope and op, balanced.
  CHECK(g_depth == 0);
  REQUIRE(g_ranges.size() == 7);
  CHECK(g_ranges[0] == "g_step");
  CHECK(g_ranges[1] == "g_matmul");
  CHECK(g_ranges[6] == "g_host");

  probe::flush();
  const std::string cmd = std::string(PROBE_TEST_PYTHON) + " " + PROBE_TEST_SOURCE_DIR +
                          "/timing/check_trace.py '" + path + "' --count g_matmul=6 --count g_step=3 --threads 2";
  const int rc = std::system(cmd.c_str());
  CHECK((WIFEXITED(rc) && WEXITSTATUS(rc) == 0));
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(ss.str().find("\"cat\":\"gpu\"") != std::string::npos);
  CHECK(ss.str().find("GPU 0 stream 0x1000") != std::string::npos);

  // Ranges are pushed only while timing is on.
  probe::set_flags("");
  g_ranges.clear();
  { PROBE_SCOPE("g_off"); }
  CHECK(g_ranges.empty());
  probe::detail::set_gpu_backend(nullptr, nullptr);
}
