// probe::print and probe::callback: formatting, capture at the call, order, barrier, lines
// never interleaved, bounded queue, on/off flags, exceptions in callbacks.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/core/device_access.hpp>
#include <probe/effects/effect_queue.hpp>


#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "print_fixture.hpp"

using probe_test::print_file;

TEST_CASE("print: scalars, strings, tensors and specs, one line each") {
  print_file f;
  std::vector<float> x{1.5f, -2.f, 3.25f};
  std::string name = "conv1";
  probe::print("step {}: x = {}", 3, x);
  probe::print("{} loss={:.3f} ok={} c={}", name, 0.123456, true, 'z');
  probe::print("ends with a newline\n");
  probe::print("{:>6}|{:<4}|", 42, "ab");
  probe::print("");
  CHECK(f.read() ==
        "step 3: x = [ 1.5  -2.    3.25]\n"
        "conv1 loss=0.123 ok=true c=z\n"
        "ends with a newline\n"
        "    42|ab  |\n"
        "\n");
}

TEST_CASE("print: large tensors are summarized as numpy summarizes them") {
  print_file f;
  std::vector<int> big(2000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<int>(i);
  probe::print("{}", big);
  CHECK(f.read() == "[   0    1    2 ... 1997 1998 1999]\n");
}

TEST_CASE("print: a format/argument mismatch prints a clear error, once logged") {
  print_file f;
  probe_test::capture_fd err;
  probe::print(probe::runtime_format("a={} b={}"), 1);
  const std::string text = f.read();
  CHECK(text.find("more placeholders than arguments") != std::string::npos);
  CHECK(text.back() == '\n');
}

TEST_CASE("print: arguments are captured at the call") {
  print_file f;
  std::vector<double> v{1, 2, 3};
  std::string s = "before";
  char buf[16] = "buffer";
  auto heap = std::make_unique<float[]>(4);
  for (int i = 0; i < 4; ++i) heap[i] = static_cast<float>(i);
  probe::print("{} {} {} {}", v, s, buf, probe::view(heap.get(), {2, 2}));
  v.assign({9, 9, 9});
  s = "after";
  std::strcpy(buf, "changed");
  for (int i = 0; i < 4; ++i) heap[i] = -1;
  heap.reset();  // the print must not read freed memory
  int step = 5;
  probe::print("{}", step);
  step = 6;
  CHECK(f.read() == "[1. 2. 3.] before buffer [[0. 1.]\n [2. 3.]]\n5\n");
}

namespace {
struct pair_value {
  int a;
  double b;
};
}  // namespace

TEST_CASE("callback: captured values; strings as const char*, tensors as a host copy") {
  print_file f;
  std::vector<float> x{1, 2, 3, 4};
  std::string label = "lbl";
  std::atomic<int> ran{0};
  const float* original = x.data();
  const float* seen_data = nullptr;
  std::string seen;
  probe::callback(
      [&](int step, const char* name, probe::tensor_view t, pair_value pv, const std::string& as_string) {
        seen = probe::format("{} {} {} {} {} {}", step, name, t, pv.a, pv.b, as_string);
        seen_data = static_cast<const float*>(t.data);
        CHECK(t.where.is_host());
        CHECK(t.is_contiguous());
        ran.fetch_add(1);
      },
      7, label, probe::view(x.data(), {2, 2}), pair_value{4, 0.5}, label);
  x[0] = 100;
  label = "changed";
  probe::effects_barrier();
  CHECK(ran.load() == 1);
  CHECK(seen == "7 lbl [[1. 2.]\n [3. 4.]] 4 0.5 lbl");
  CHECK(seen_data != original);  // a copy, not the caller's memory
}

TEST_CASE("callback: plain functions and mutable callables") {
  print_file f;
  static int total = 0;
  struct adder {
    static void add(int v) { total += v; }
  };
  probe::callback(adder::add, 2);
  probe::callback(&adder::add, 3);
  int calls = 0;
  probe::callback([&calls, n = 0]() mutable { calls = ++n; });
  probe::effects_barrier();
  CHECK(total == 5);
  CHECK(calls == 1);
}

TEST_CASE("callback: an exception is caught, reported once, and later callbacks still run") {
  print_file f;
  probe_test::capture_fd err;
  std::atomic<int> after{0};
  for (int i = 0; i < 3; ++i) probe::callback([] { throw std::runtime_error("kaboom"); });
  probe::callback([] { throw 42; });
  probe::callback([&] { after = 1; });
  probe::effects_barrier();
  const std::string text = err.stop();
  CHECK(after.load() == 1);
  const size_t first = text.find("a probe::callback threw");
  REQUIRE(first != std::string::npos);
  CHECK(text.find("kaboom") != std::string::npos);
  CHECK(text.find("a probe::callback threw", first + 1) == std::string::npos);
}

TEST_CASE("callback: prints and barriers from inside a callback") {
  print_file f;
  probe::print("one");
  probe::callback([] {
    probe::print("two (from a callback)");
    probe::effects_barrier();  // runs what is queued; must not wait for itself
    probe::print("three");
  });
  probe::print("four");
  // "four" may run before or after "two" (the callback's prints queue from the worker);
  // "one" comes first, "three" after "two", and nothing is lost.
  const auto lines = f.lines();
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "one");
  const auto at = [&](const char* s) { return std::find(lines.begin(), lines.end(), s) - lines.begin(); };
  CHECK(at("two (from a callback)") < at("three"));
  CHECK(at("four") < 4);
}

TEST_CASE("effects_barrier: waits for callbacks still running") {
  print_file f;
  std::atomic<int> done{0};
  probe::callback([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    done = 1;
  });
  probe::effects_barrier();
  CHECK(done.load() == 1);
  // From another thread too: a barrier covers what any thread queued before it.
  std::atomic<int> queued{0};
  std::thread t([&] {
    probe::callback([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      done = 2;
    });
    queued = 1;
  });
  t.join();
  probe::effects_barrier();
  CHECK(done.load() == 2);
}

TEST_CASE("effects_barrier: a callback that consumes inside (nested barrier) still counts as running") {
  print_file f;
  std::atomic<bool> c_started{false}, c_done{false}, q_queued{false};
  probe::callback([&] {
    c_started = true;
    while (!q_queued.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // the other barrier is waiting
    probe::effects_barrier();  // runs "p1" and "q" from inside this callback
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    c_done = true;
  });
  probe::print("p1");
  while (!c_started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  bool done_when_barrier_returned = false;
  std::thread waiter([&] {
    probe::effects_barrier();  // covers the callback and "p1"
    done_when_barrier_returned = c_done.load();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  probe::print("q");  // queued after the waiter's barrier began
  q_queued = true;
  waiter.join();
  CHECK(done_when_barrier_returned);
  CHECK(f.read() == "p1\nq\n");
}

TEST_CASE("ordered: program order across threads") {
  print_file f;
  constexpr int threads = 8, rounds = 150;
  std::atomic<int> token{0};
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      for (int r = 0; r < rounds; ++r) {
        const int mine = r * threads + k;
        while (token.load(std::memory_order_acquire) != mine) std::this_thread::yield();
        probe::print(probe::ordered, "{}", mine);
        token.store(mine + 1, std::memory_order_release);
      }
    });
  for (auto& t : pool) t.join();
  const auto lines = f.lines();
  REQUIRE(lines.size() == threads * rounds);
  int out_of_order = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i] != std::to_string(i)) ++out_of_order;
  CHECK(out_of_order == 0);
}

TEST_CASE("default mode: each thread's prints keep that thread's order; nothing is lost") {
  print_file f;
  constexpr int threads = 8, per_thread = 500;
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([k] {
      for (int i = 0; i < per_thread; ++i) probe::print("{} {}", k, i);
    });
  for (auto& t : pool) t.join();
  const auto lines = f.lines();
  REQUIRE(lines.size() == threads * per_thread);
  std::vector<int> next(threads, 0);
  int bad = 0;
  for (const std::string& l : lines) {
    int k = -1, i = -1;
    if (std::sscanf(l.c_str(), "%d %d", &k, &i) != 2 || k < 0 || k >= threads || i != next[k]) {
      ++bad;
      continue;
    }
    ++next[k];
  }
  CHECK(bad == 0);
}

TEST_CASE("lines from 8 threads never interleave mid-line") {
  print_file f;
  constexpr int threads = 8, per_thread = 400;
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([k] {
      const std::string payload(300, static_cast<char>('a' + k));
      std::vector<float> t{static_cast<float>(k), 0.5f};
      for (int i = 0; i < per_thread; ++i) probe::print("T{} {} {} {}", k, i, payload, t);
    });
  for (auto& t : pool) t.join();
  const auto lines = f.lines();
  REQUIRE(lines.size() == threads * per_thread);
  int bad = 0;
  for (const std::string& l : lines) {
    int k = -1, i = -1;
    if (std::sscanf(l.c_str(), "T%d %d", &k, &i) != 2 || k < 0 || k >= threads) {
      ++bad;
      continue;
    }
    const std::string expect = probe::format("T{} {} {} [{}.  0.5]", k, i, std::string(300, static_cast<char>('a' + k)), k);
    if (l != expect) ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("bounded queue: a full queue makes the caller wait, and nothing is lost") {
  print_file f;
  auto& q = probe::detail::effect_queue_ref();
  const uint32_t saved = q.shard_capacity;
  q.shard_capacity = 4;
  std::atomic<bool> release{false}, started{false};
  probe::callback([&] {
    started = true;
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (!started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::atomic<int> pushed{0};
  std::thread producer([&] {
    for (int i = 0; i < 20; ++i) {
      probe::print("line {}", i);
      pushed.fetch_add(1);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const int while_blocked = pushed.load();
  CHECK(while_blocked <= 5);  // the shard's 4 slots, plus at most one in flight
  release = true;
  producer.join();
  CHECK(pushed.load() == 20);
  q.shard_capacity = saved;
  const auto lines = f.lines();
  REQUIRE(lines.size() == 20);
  for (int i = 0; i < 20; ++i) CHECK(lines[static_cast<size_t>(i)] == "line " + std::to_string(i));
}

TEST_CASE("flags: --probe_print=off stops prints, not callbacks; --probe_callback=off stops callbacks") {
  {
    print_file f("--probe_print=off");
    std::atomic<int> ran{0};
    probe::print("hidden {}", 1);
    probe::callback([&] { ran = 1; });
    probe::effects_barrier();
    CHECK(ran.load() == 1);
    CHECK(f.read().empty());
  }
  {
    print_file f("--probe_callback=off");
    std::atomic<int> ran{0};
    probe::print("shown");
    probe::callback([&] { ran = 1; });
    CHECK(f.read() == "shown\n");
    CHECK(ran.load() == 0);
  }
}

TEST_CASE("print: stderr by default") {
  probe::set_flags("");
  probe_test::capture_fd err;
  probe::print("to stderr {}", 1);
  probe::effects_barrier();
  CHECK(err.stop() == "to stderr 1\n");
}

TEST_CASE("print: a device tensor without a device backend prints its description") {
  print_file f;
  probe_test::capture_fd err;
  float x[4] = {1, 2, 3, 4};
  probe::print("d={}", probe::view(x, {4}).on_cuda(1));
  const std::string text = f.read();
  const std::string log = err.stop();
  if (probe::detail::get_device_access(probe::device::cuda) == nullptr) {
    CHECK(text == "d=<float32[4] on cuda:1>\n");
    CHECK(log.find("cannot copy a tensor argument") != std::string::npos);
  }
}
