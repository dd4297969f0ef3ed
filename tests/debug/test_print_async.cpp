// The asynchronous capture path that the CUDA executor uses, driven by a host fake: copies
// land later ("when the stream gets there"), the caller never waits for them, records wait
// for their copies in order, and barriers wait for copies in flight.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/effects/capture.hpp>
#include <probe/effects/effect_records.hpp>


#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "print_fixture.hpp"

namespace {

// Views marked on_cuda() over host memory; the copy is made when complete_all() runs.
class deferred_executor final : public probe::detail::capture_executor {
 public:
  bool handles(const probe::tensor_view& v) const noexcept override { return v.where.kind == probe::device::cuda; }
  probe::detail::capture_status capture(const probe::tensor_view& v, void** host, probe::detail::effect_record* r,
                                        std::string*) noexcept override {
    void* p = std::malloc(v.nbytes() ? v.nbytes() : 1);
    std::memset(p, 0xAB, v.nbytes());  // what a premature reader would see
    *host = p;
    std::lock_guard<std::mutex> g(m);
    pending.push_back({p, v.data, v.nbytes(), r});
    return probe::detail::capture_status::pending;
  }
  void release(void* host) noexcept override {
    std::free(host);
    released.fetch_add(1);
  }
  void complete_all() {
    std::vector<copy> now;
    {
      std::lock_guard<std::mutex> g(m);
      now.swap(pending);
    }
    for (const copy& c : now) {
      std::memcpy(c.dst, c.src, c.n);
      probe::detail::effect_capture_done(c.r);
    }
  }
  size_t in_flight() {
    std::lock_guard<std::mutex> g(m);
    return pending.size();
  }

  struct copy {
    void* dst;
    const void* src;
    size_t n;
    probe::detail::effect_record* r;
  };
  std::mutex m;
  std::vector<copy> pending;
  std::atomic<int> released{0};
};

struct executor_scope {
  deferred_executor exec;
  executor_scope() { probe::detail::set_capture_executor(probe::device::cuda, &exec); }
  ~executor_scope() {
    exec.complete_all();
    probe::effects_barrier();
    probe::detail::set_capture_executor(probe::device::cuda, nullptr);
  }
};

}  // namespace

TEST_CASE("async capture: the caller does not wait; the record waits for its copy, in order") {
  probe_test::print_file f;
  executor_scope s;
  std::vector<float> dev{1, 2, 3};
  const auto t0 = std::chrono::steady_clock::now();
  probe::print("device {}", probe::view(dev.data(), {3}).on_cuda());
  probe::print("after {}", 1);  // same thread: must come out after the device print
  const auto caller = std::chrono::steady_clock::now() - t0;
  CHECK(caller < std::chrono::milliseconds(50));
  CHECK(s.exec.in_flight() == 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  // Nothing printed yet: the first record is not ready and holds back its thread's queue.
  CHECK(f.peek().empty());
  dev[0] = 10;  // the "stream" reaches the print after this write: the copy sees it
  s.exec.complete_all();
  CHECK(f.read() == "device [10.  2.  3.]\nafter 1\n");
  CHECK(s.exec.released.load() == 1);
}

TEST_CASE("async capture: a barrier waits for copies still in flight") {
  probe_test::print_file f;
  executor_scope s;
  std::vector<int> dev{4, 5};
  std::atomic<bool> seen{false};
  probe::callback(
      [&](probe::tensor_view t) {
        const int* p = static_cast<const int*>(t.data);
        seen = p[0] == 4 && p[1] == 5;
      },
      probe::view(dev.data(), {2}).on_cuda());
  std::atomic<bool> barrier_done{false};
  std::thread waiter([&] {
    probe::effects_barrier();
    barrier_done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(barrier_done.load());
  s.exec.complete_all();
  waiter.join();
  CHECK(barrier_done.load());
  CHECK(seen.load());
}

TEST_CASE("async capture: ordered prints from other threads wait for an earlier pending one") {
  probe_test::print_file f;
  executor_scope s;
  std::vector<float> dev{7};
  probe::print(probe::ordered, "first {}", probe::view(dev.data(), {1}).on_cuda());
  std::thread other([] { probe::print(probe::ordered, "second"); });
  other.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  s.exec.complete_all();
  CHECK(f.read() == "first [7.]\nsecond\n");
}
