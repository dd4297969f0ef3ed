#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/core/tensor.hpp>
#include <probe/core/tensor_reader.hpp>

#include <array>
#include <complex>
#include <cstdint>
#include <vector>

namespace engine {
// An engine's own tensor type, adapted with the ADL customization point.
struct Tensor {
  std::vector<float> storage;
  std::vector<int64_t> dims;
};
probe::tensor_view probe_view(const Tensor& t) { return probe::view(t.storage.data(), t.dims); }
}  // namespace engine

TEST_CASE("dtype: C++ types map to dtypes") {
  using probe::dtype;
  CHECK(probe::dtype_of<bool>::value == dtype::boolean);
  CHECK(probe::dtype_of<int8_t>::value == dtype::int8);
  CHECK(probe::dtype_of<int16_t>::value == dtype::int16);
  CHECK(probe::dtype_of<int32_t>::value == dtype::int32);
  CHECK(probe::dtype_of<int64_t>::value == dtype::int64);
  CHECK(probe::dtype_of<long long>::value == dtype::int64);
  CHECK(probe::dtype_of<uint8_t>::value == dtype::uint8);
  CHECK(probe::dtype_of<uint16_t>::value == dtype::uint16);
  CHECK(probe::dtype_of<uint32_t>::value == dtype::uint32);
  CHECK(probe::dtype_of<uint64_t>::value == dtype::uint64);
  CHECK(probe::dtype_of<size_t>::value == dtype::uint64);
  CHECK(probe::dtype_of<probe::float16>::value == dtype::float16);
  CHECK(probe::dtype_of<probe::bfloat16>::value == dtype::bfloat16);
  CHECK(probe::dtype_of<float>::value == dtype::float32);
  CHECK(probe::dtype_of<const double>::value == dtype::float64);
  CHECK(probe::dtype_of<std::complex<float>>::value == dtype::complex64);
  CHECK(probe::dtype_of<std::complex<double>>::value == dtype::complex128);
  CHECK(probe::dtype_of<std::vector<float>>::value == dtype::invalid);
  CHECK(probe::dtype_size(dtype::complex128) == 16);
  CHECK(std::string(probe::dtype_name(dtype::bfloat16)) == "bfloat16");
}

TEST_CASE("view: containers, pointer + shape, strides, scalars") {
  std::vector<float> v(12);
  auto a = probe::view(v);
  CHECK(a.ndim == 1);
  CHECK(a.shape[0] == 12);
  CHECK(a.strides[0] == 1);
  CHECK(a.type == probe::dtype::float32);
  CHECK(a.data == v.data());
  CHECK(a.is_contiguous());

  std::array<int32_t, 6> arr{};
  auto b = probe::view(arr);
  CHECK(b.type == probe::dtype::int32);
  CHECK(b.numel() == 6);

  auto c = probe::view(v.data(), {3, 4});
  CHECK(c.ndim == 2);
  CHECK(c.strides[0] == 4);
  CHECK(c.strides[1] == 1);
  CHECK(c.nbytes() == 48);

  // A transposed view: shape 4x3 over the 3x4 buffer.
  auto t = probe::view(v.data(), {4, 3}, {1, 4});
  CHECK(t.strides[0] == 1);
  CHECK(t.strides[1] == 4);
  CHECK_FALSE(t.is_contiguous());

  std::vector<size_t> shape{2, 2, 3};
  auto d = probe::view(v.data(), shape);
  CHECK(d.ndim == 3);
  CHECK(d.shape[2] == 3);
  CHECK(d.strides[0] == 6);

  double s = 3.5;
  auto e = probe::view(s);
  CHECK(e.ndim == 0);
  CHECK(e.numel() == 1);
  CHECK(e.type == probe::dtype::float64);

  auto f = probe::view(v.data(), 5);
  CHECK(f.shape[0] == 5);
}

TEST_CASE("view: more than 8 dims or mismatched strides give an invalid view") {
  float x[1] = {};
  auto v = probe::view(x, {1, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK_FALSE(v.valid());
  auto w = probe::view(x, {1, 1}, {1});
  CHECK_FALSE(w.valid());
  auto ok = probe::view(x, {1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(ok.valid());
}

TEST_CASE("view: device tag") {
  float x[4] = {};
  auto d = probe::view(x, {4}).on_cuda(1);
  CHECK(d.where.kind == probe::device::cuda);
  CHECK(d.where.index == 1);
  CHECK_FALSE(d.where.is_host());
  CHECK(d.on_host().where.is_host());
}

TEST_CASE("view: engine tensors through ADL probe_view") {
  engine::Tensor t{std::vector<float>(6), {2, 3}};
  auto v = probe::to_view(t);
  CHECK(v.ndim == 2);
  CHECK(v.shape[1] == 3);
  CHECK(v.data == t.storage.data());
  CHECK(probe::is_viewable<engine::Tensor>);
  CHECK(probe::is_viewable<std::vector<double>>);
  CHECK_FALSE(probe::is_viewable<engine::Tensor*>);
}

TEST_CASE("view: element counts of huge shapes with a 0 dimension are 0, without overflow") {
  float x = 0;
  const int64_t big = int64_t(1) << 40;
  const probe::tensor_view v = probe::view(&x, probe::dims{big, big, big, 0}, probe::dims{0, 0, 0, 1});
  CHECK(v.numel() == 0);
  CHECK(v.nbytes() == 0);
  const probe::tensor_view h = probe::view(&x, probe::dims{big, big, 2}, probe::dims{0, 0, 1});
  CHECK(h.numel() == INT64_MAX);  // does not fit: saturated, never wrapped to a small count
  const probe::tensor t(probe::dtype::float32, probe::dims{0, big, big});
  CHECK(t.numel() == 0);
}

TEST_CASE("tensor: made to be filled, every byte comes from the view; made empty, every byte is zero") {
  // Memory that held something else first: a tensor that skipped its fill would show it.
  auto dirty = [] {
    std::vector<unsigned char> junk(4096 * 8, 0xab);
    volatile unsigned char sink = junk[100];
    (void)sink;
  };
  dirty();
  const probe::tensor z(probe::dtype::float64, probe::dims{64, 64});
  const double* zd = z.data_as<double>();
  size_t nonzero = 0;
  for (int64_t i = 0; i < z.numel(); ++i) nonzero += zd[i] != 0;
  CHECK(nonzero == 0);

  // a strided view (every other column), through copy_of and through the reader
  std::vector<float> src(16 * 32);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) + 0.5f;
  const probe::tensor_view v = probe::view(src.data(), probe::dims{16, 16}, probe::dims{32, 2});
  dirty();
  const probe::tensor c = probe::tensor::copy_of(v);
  probe::tensor r;
  std::string err;
  dirty();
  REQUIRE(probe::detail::read_tensor(v, &r, &err));
  for (const probe::tensor* t : {&c, static_cast<const probe::tensor*>(&r)}) {
    REQUIRE(t->numel() == 256);
    const float* d = t->data_as<float>();
    size_t wrong = 0;
    for (int64_t i = 0; i < 16; ++i)
      for (int64_t j = 0; j < 16; ++j) wrong += d[i * 16 + j] != src[static_cast<size_t>(i * 32 + j * 2)];
    CHECK(wrong == 0);
  }
}
