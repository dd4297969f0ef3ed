// Setting flags again and again: memory stays bounded, a flags file that includes itself is
// said once, and threads that mark while flags change read whole, immutable options (run it
// under ThreadSanitizer: scripts/test.sh --sanitize=thread, or a -fsanitize=thread build).
#include <doctest/doctest.h>
#include <malloc.h>
#include <probe/probe.hpp>
#include <probe/core/flags.hpp>

#include <atomic>
#include <cstring>
#include <fstream>
#include <thread>

#include "../support/capture.hpp"

using probe_test::capture_fd;
using probe_test::temp_dir;

namespace {
size_t heap_in_use() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  return mallinfo2().uordblks;
#else
  return static_cast<size_t>(mallinfo().uordblks);
#endif
}
}  // namespace

TEST_CASE("flags: setting the same flags again and again does not grow the process") {
  temp_dir d;
  const std::string a = "--probe_dump_to=" + (d / "a") + " --probe_dump_as_npy --probe_dump_op_re=conv|relu --probe_timing";
  const std::string b = "--probe_dump_to=" + (d / "b") + " --probe_dump_stats_only --probe_dump_type_re=Conv";
  for (int i = 0; i < 20; ++i) {
    probe::set_flags(a.c_str());
    probe::set_flags(b.c_str());
  }
  const size_t strings = probe::detail::interned_count();
  const size_t heap = heap_in_use();
  for (int i = 0; i < 500; ++i) {
    probe::set_flags(a.c_str());
    probe::set_flags(b.c_str());
  }
  CHECK(probe::detail::interned_count() == strings);
  // 1000 calls: about 8 KB each when every call kept its strings, options and configurations.
  const size_t grown = heap_in_use() - heap;
  CHECK(grown < size_t(64) << 10);
  probe::set_flags("");
}

TEST_CASE("flags: a flags file that includes itself is read once, with one message") {
  temp_dir d;
  const std::string self = d / "self.flags", other = d / "other.flags";
  std::ofstream(self) << "--probe_reference\n" << other << "\n";
  std::ofstream(other) << "--probe_dump_max_ops=7\n" << self << "\n";
  capture_fd cap;
  probe::set_flags(self.c_str());
  const std::string err = cap.stop();
  INFO(err);
  CHECK(probe::options_ref().reference);
  CHECK(probe::options_ref().dump_max_ops == 7);
  size_t n = 0;
  for (size_t at = err.find("includes itself"); at != std::string::npos; at = err.find("includes itself", at + 1)) ++n;
  CHECK(n == 1);
  CHECK(err.find("nests too deeply") == std::string::npos);
  probe::set_flags("");
}

TEST_CASE("flags: threads marking while another sets flags see whole options") {
  std::atomic<bool> stop{false};
  std::atomic<long> seen{0};
  std::thread reader([&] {
    while (!stop.load()) {
      probe::op op("race", "Race");
      const probe::options& o = probe::options_ref();
      // Either set of flags, never a mixture or a half-written one.
      if (o.reference) seen += o.dump_max_ops == 3 ? 1 : 1000000;
    }
  });
  for (int i = 0; i < 300; ++i) probe::set_flags(i % 2 ? "--probe_reference --probe_dump_max_ops=3 --probe_dump_to=-" : "--probe_timing");
  stop = true;
  reader.join();
  CHECK(seen.load() < 1000000);
  probe::set_flags("");
}
