// probe's tensor text against numpy's: random tensors of every dtype, shape and layout are
// printed by probe, rebuilt by numpy over the same bytes, printed by numpy and compared
// (numpy_str_check.py).
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/core/format_tensor.hpp>


#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../support/capture.hpp"
#include "numpy_cases.hpp"

namespace {

struct options_case {
  int precision;
  char mode;
  bool sign_plus;
  int64_t threshold;
  int edgeitems;
  int linewidth;
};

void write_case(std::ofstream& out, const std::string& name, probe::dtype t, const probe_test::layout_case& lay,
                const std::vector<unsigned char>& base, const options_case& o) {
  const size_t item = probe::dtype_size(t);
  probe::tensor_view v = probe::view_raw(base.data() + lay.offset * static_cast<int64_t>(item), t,
                                         probe::dims(lay.shape), probe::dims(lay.strides));
  probe::detail::tensor_format f;
  f.precision = o.precision;
  f.float_mode = o.mode;
  f.sign_plus = o.sign_plus;
  f.threshold = o.threshold;
  f.edgeitems = o.edgeitems;
  f.linewidth = o.linewidth;
  std::string text;
  probe::detail::format_tensor(text, v, f);
  out << "case " << name << ' ' << probe::dtype_name(t) << ' ' << lay.shape.size();
  for (int64_t s : lay.shape) out << ' ' << s;
  for (int64_t s : lay.strides) out << ' ' << s * static_cast<int64_t>(item);
  out << ' ' << lay.offset * static_cast<int64_t>(item) << ' ' << o.precision << ' ' << o.mode << ' '
      << (o.sign_plus ? 1 : 0) << ' ' << o.threshold << ' ' << o.edgeitems << ' ' << o.linewidth << '\n';
  out << "data ";
  static const char* hex = "0123456789abcdef";
  for (unsigned char c : base) out << hex[c >> 4] << hex[c & 15];
  out << "\nout " << text.size() << '\n' << text << '\n';
}

}  // namespace

TEST_CASE("format_tensor: matches numpy's str() on random tensors of every dtype, shape and layout") {
  using probe::dtype;
  const dtype types[] = {dtype::boolean, dtype::int8,    dtype::int16,   dtype::int32,     dtype::int64,
                         dtype::uint8,   dtype::uint16,  dtype::uint32,  dtype::uint64,    dtype::float16,
                         dtype::bfloat16, dtype::float32, dtype::float64, dtype::complex64, dtype::complex128};
  const std::vector<std::vector<int64_t>> shapes = {
      {},        {0},       {1},          {2},         {3},           {5},          {7},
      {10},      {17},      {30},         {2, 3},      {3, 1},        {1, 5},       {4, 4},
      {0, 3},    {2, 3, 4}, {2, 1, 3},    {2, 2, 2, 2}, {1001},       {2000},       {40, 40},
      {3, 400},  {11, 11, 11}, {2, 3, 200}, {1, 1, 1, 1, 1}};
  const options_case options[] = {
      {-1, 'g', false, 1000, 3, 75}, {3, 'g', false, 1000, 3, 75}, {4, 'f', false, 1000, 3, 75},
      {3, 'e', false, 1000, 3, 75},  {-1, 'g', true, 1000, 3, 75}, {2, 'g', false, 10, 2, 40},
      {-1, 'g', false, 5, 1, 30},    {0, 'f', false, 1000, 3, 75},
  };
  probe_test::temp_dir dir;
  const std::string path = dir / "cases.txt";
  std::ofstream out(path, std::ios::binary);
  probe_test::rng r{static_cast<uint64_t>(std::getenv("PROBE_TEST_SEED") ? std::atoll(std::getenv("PROBE_TEST_SEED")) : 42)};
  int cases = 0;
  for (dtype t : types) {
    const size_t item = probe::dtype_size(t);
    for (size_t si = 0; si < shapes.size(); ++si) {
      for (int rep = 0; rep < 3; ++rep) {
        const int kind = rep == 0 ? 0 : 1 + r.below(3);
        const probe_test::layout_case lay = probe_test::make_layout(shapes[si], kind);
        std::vector<unsigned char> base(static_cast<size_t>(lay.buffer_elements) * item);
        const int scenario = r.below(6), scale = r.below(22) - 10;
        for (int64_t i = 0; i < lay.buffer_elements; ++i)
          probe_test::store(base.data() + i * static_cast<int64_t>(item), t, probe_test::draw(r, scenario, scale), r);
        const options_case& o = options[(si + static_cast<size_t>(rep) * 3) % (sizeof options / sizeof options[0])];
        write_case(out, std::to_string(cases), t, lay, base, o);
        ++cases;
      }
    }
  }
  out.close();
  const std::string cmd = std::string(PROBE_TEST_PYTHON) + " " + PROBE_TEST_SOURCE_DIR +
                          "/format/numpy_str_check.py " + path + " > " + (dir / "report.txt") + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream rep(dir / "report.txt");
  std::stringstream ss;
  ss << rep.rdbuf();
  const std::string report = ss.str();
  INFO(report);
  CHECK(rc == 0);
  int compared = 0, skipped = 0, mismatched = -1;
  const size_t at = report.rfind("compared ");
  REQUIRE(at != std::string::npos);
  std::sscanf(report.c_str() + at, "compared %d skipped %d mismatched %d", &compared, &skipped, &mismatched);
  CHECK(mismatched == 0);
  // bfloat16 (no numpy dtype) and notation mismatches of the 'f'/'e' modes are skipped.
  CHECK(compared > cases * 3 / 4);
}
