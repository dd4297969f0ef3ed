#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/core/tensor.hpp>
#include <probe/core/tensor_reader.hpp>
#include <probe/core/device_access.hpp>


#include <cstring>
#include <numeric>
#include <vector>

#include "../support/fake_device.hpp"

using probe::detail::tensor_reader;

namespace {
std::vector<char> read_all(tensor_reader& r, size_t* chunks = nullptr) {
  std::vector<char> out;
  const void* p;
  size_t n;
  size_t count = 0;
  while (r.next(&p, &n) && n) {
    out.insert(out.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
    ++count;
  }
  if (chunks) *chunks = count;
  return out;
}
}  // namespace

TEST_CASE("tensor_reader: contiguous host view in bounded chunks, zero copy") {
  std::vector<float> x(1000);
  std::iota(x.begin(), x.end(), 0.f);
  tensor_reader r;
  REQUIRE(r.open(probe::view(x), 256));
  const void* p;
  size_t n;
  REQUIRE(r.next(&p, &n));
  CHECK(n == 256);
  CHECK(p == x.data());  // straight from the caller's memory
  tensor_reader r2;
  REQUIRE(r2.open(probe::view(x), 256));
  size_t chunks = 0;
  auto bytes = read_all(r2, &chunks);
  CHECK(chunks == 16);  // 4000 bytes / 256
  REQUIRE(bytes.size() == 4000);
  CHECK(std::memcmp(bytes.data(), x.data(), 4000) == 0);
}

TEST_CASE("tensor_reader: strided host views come out row-major") {
  std::vector<int32_t> m(12);
  std::iota(m.begin(), m.end(), 0);  // 3x4 row-major
  auto t = probe::view(m.data(), {4, 3}, {1, 4});  // its transpose
  tensor_reader r;
  REQUIRE(r.open(t, 8));  // two elements per chunk
  auto bytes = read_all(r);
  REQUIRE(bytes.size() == 48);
  const int32_t* v = reinterpret_cast<const int32_t*>(bytes.data());
  const int32_t expect[12] = {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11};
  for (int i = 0; i < 12; ++i) CHECK(v[i] == expect[i]);
  // Negative strides (a reversed view).
  auto rev = probe::view(m.data() + 11, {12}, {-1});
  tensor_reader r2;
  REQUIRE(r2.open(rev));
  auto b2 = read_all(r2);
  const int32_t* w = reinterpret_cast<const int32_t*>(b2.data());
  for (int i = 0; i < 12; ++i) CHECK(w[i] == 11 - i);
}

TEST_CASE("tensor_reader: device views stream through double-buffered staging") {
  probe_test::fake_cuda_scope cuda;
  std::vector<double> x(1000);
  std::iota(x.begin(), x.end(), 0.0);
  int stream_tag = 0;
  auto d = probe::view(x).on_cuda(0, &stream_tag);
  {
    tensor_reader r;
    REQUIRE(r.open(d, 800));  // 100 elements per chunk
    auto bytes = read_all(r);
    REQUIRE(bytes.size() == 8000);
    CHECK(std::memcmp(bytes.data(), x.data(), 8000) == 0);
    CHECK(cuda.dev.copies_started == 10);
    CHECK(cuda.dev.max_in_flight <= 2);        // the next copy overlaps the current chunk
    CHECK(cuda.dev.last_stream == &stream_tag);  // ordered on the tensor's stream
  }
  CHECK(cuda.dev.live_staging == 0);
  CHECK(cuda.dev.pending.empty());
}

TEST_CASE("tensor_reader: abandoning a device read waits for copies in flight") {
  probe_test::fake_cuda_scope cuda;
  std::vector<float> x(4096, 1.f);
  {
    tensor_reader r;
    REQUIRE(r.open(probe::view(x).on_cuda(), 1024));
    const void* p;
    size_t n;
    REQUIRE(r.next(&p, &n));
  }
  CHECK(cuda.dev.pending.empty());
  CHECK(cuda.dev.live_staging == 0);
}

TEST_CASE("tensor_reader: strided device view and device errors") {
  probe_test::fake_cuda_scope cuda;
  std::vector<int16_t> m(6);
  std::iota(m.begin(), m.end(), 0);
  auto t = probe::view(m.data(), {3, 2}, {1, 3}).on_cuda();
  probe::tensor out;
  std::string err;
  REQUIRE(probe::detail::read_tensor(t, &out, &err));
  const int16_t* v = out.data_as<int16_t>();
  const int16_t expect[6] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) CHECK(v[i] == expect[i]);

  cuda.dev.copies_started = 0;
  cuda.dev.fail_after = 2;
  std::vector<float> big(1000);
  tensor_reader r;
  REQUIRE(r.open(probe::view(big).on_cuda(), 400));
  const void* p;
  size_t n;
  CHECK(r.next(&p, &n));        // the first two copies were fine
  CHECK_FALSE(r.next(&p, &n));  // issuing the third failed
  CHECK(r.error().find("copy failed") != std::string::npos);
}

TEST_CASE("tensor_reader: no backend for the device is a clear error") {
  auto* saved = probe::detail::get_device_access(probe::device::cuda);
  probe::detail::set_device_access(probe::device::cuda, nullptr);
  float x[4] = {};
  tensor_reader r;
  CHECK_FALSE(r.open(probe::view(x, {4}).on_cuda()));
  CHECK(r.error().find("without this device's backend") != std::string::npos);
  probe::detail::set_device_access(probe::device::cuda, saved);
  tensor_reader bad;
  CHECK_FALSE(bad.open(probe::view(x, {1, 1, 1, 1, 1, 1, 1, 1, 1})));
}
