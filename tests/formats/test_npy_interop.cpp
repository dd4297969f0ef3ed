// .npy interop with numpy, both directions (numpy runs in npy_interop.py), and probe's
// float16 narrowing against numpy's on random float32 bit patterns.
#include <doctest/doctest.h>
#include <probe/core/half.hpp>
#include <probe/formats/npy.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../support/capture.hpp"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

int run_python(const std::string& mode, const std::string& dir) {
  const std::string cmd = std::string(PROBE_TEST_PYTHON) + " " + PROBE_TEST_SOURCE_DIR +
                          "/formats/npy_interop.py " + mode + " '" + dir + "'";
  return std::system(cmd.c_str());
}

// Records what numpy should find: NAME.npy written by probe, NAME.bin the expected bytes.
struct expectations {
  const probe_test::temp_dir& dir;
  std::ofstream list;
  explicit expectations(const probe_test::temp_dir& d) : dir(d), list(d / "expect.txt") {}

  void add(const std::string& name, const probe::tensor_view& v, const std::string& expected_bytes) {
    std::string err;
    REQUIRE_MESSAGE(probe::npy::write(dir / (name + ".npy"), v, &err), err);
    std::ofstream(dir / (name + ".bin"), std::ios::binary) << expected_bytes;
    std::string shape;
    for (int i = 0; i < v.ndim; ++i) shape += (i ? "," : "") + std::to_string(v.shape[i]);
    list << name << ' ' << probe::dtype_name(v.type) << ' ' << (shape.empty() ? "-" : shape) << '\n';
  }
};

}  // namespace

TEST_CASE("npy interop: numpy loads what probe writes") {
  probe_test::temp_dir dir;
  {
    expectations e(dir);
    std::mt19937_64 rng(21);
    for (int t = 1; t < probe::dtype_count; ++t) {
      const auto type = static_cast<probe::dtype>(t);
      const size_t item = probe::dtype_size(type);
      std::string data(30 * item, '\0');
      for (auto& c : data) c = static_cast<char>(rng());
      if (type == probe::dtype::boolean)
        for (auto& c : data) c = static_cast<char>(c & 1);
      if (type == probe::dtype::float16 || type == probe::dtype::bfloat16 ||
          probe::dtype_is_float(type) || probe::dtype_is_complex(type)) {
        // Random bits include NaNs whose payload numpy may not keep bit-exactly on every
        // path; use small integers written as the type's bits instead.
        const size_t w = probe::dtype_is_complex(type) ? item / 2 : item;  // one component
        for (size_t i = 0; i < data.size() / w; ++i) {
          const double x = static_cast<double>(static_cast<int>(rng() % 200) - 100) / 4;
          if (w == 2) {
            const uint16_t b = type == probe::dtype::bfloat16 ? probe::float_to_bfloat16_bits(static_cast<float>(x))
                                                              : probe::float_to_half_bits(static_cast<float>(x));
            std::memcpy(&data[i * 2], &b, 2);
          } else if (w == 4) {
            const float f = static_cast<float>(x);
            std::memcpy(&data[i * 4], &f, 4);
          } else {
            std::memcpy(&data[i * 8], &x, 8);
          }
        }
      }
      const std::string name = probe::dtype_name(type);
      e.add(name, probe::view_raw(data.data(), type, {5, 6}), data);
      // Strided: the 6x5 transpose.
      std::string transposed;
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 5; ++j) transposed += data.substr(static_cast<size_t>(j * 6 + i) * item, item);
      e.add(name + "_transposed", probe::view_raw(data.data(), type, {6, 5}, {1, 6}), transposed);
      e.add(name + "_scalar", probe::view_raw(data.data() + 7 * item, type, {}), data.substr(7 * item, item));
      e.add(name + "_empty", probe::view_raw(nullptr, type, {0, 4}), "");
    }
  }
  CHECK(run_python("check", dir.path()) == 0);
}

TEST_CASE("npy interop: probe reads what numpy writes") {
  probe_test::temp_dir dir;
  REQUIRE(run_python("write", dir.path()) == 0);
  std::istringstream list(slurp(dir / "expect.txt"));
  std::string name, dtype, shape;
  int files = 0;
  while (list >> name >> dtype >> shape) {
    INFO(name);
    ++files;
    std::string err;
    const probe::tensor t = probe::npy::read(dir / (name + ".npy"), &err);
    REQUIRE_MESSAGE(!t.empty(), err);
    CHECK(std::string(probe::dtype_name(t.type())) == dtype);
    std::string got_shape;
    for (int i = 0; i < t.ndim(); ++i) got_shape += (i ? "," : "") + std::to_string(t.shape(i));
    CHECK((got_shape.empty() ? "-" : got_shape) == shape);
    CHECK(std::string(static_cast<const char*>(t.data()), t.nbytes()) == slurp(dir / (name + ".bin")));
  }
  CHECK(files >= 30);

  // float16 narrowing agrees with numpy's (round to nearest even) on every pattern.
  const probe::tensor src = probe::npy::read(dir / "half_source.npy");
  const probe::tensor ref = probe::npy::read(dir / "half_numpy.npy");
  REQUIRE(src.numel() == ref.numel());
  REQUIRE(ref.type() == probe::dtype::float16);
  int bad = 0;
  for (int64_t i = 0; i < src.numel(); ++i) {
    const float f = src.data_as<float>()[i];
    const uint16_t want = ref.data_as<uint16_t>()[i];
    const uint16_t got = probe::float_to_half_bits(f);
    if (std::isnan(f) ? !std::isnan(probe::half_bits_to_float(got)) : got != want) ++bad;
  }
  CHECK(bad == 0);
}
