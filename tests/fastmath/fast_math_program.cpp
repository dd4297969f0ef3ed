// Built with the floating-point flags engines use (-ffast-math, -ffinite-math-only, -Ofast,
// -march=native), probe header-only or compiled with the same flags: a planted NaN and
// infinities must still be counted, printed, dumped and stopped at, since probe classifies
// from the bits. Exit 0 when every check holds; the ctest also reads the dump and stderr.
#include <probe/probe.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

static float bits_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

int main(int argc, char** argv) {
  probe::init(argc, argv);
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::printf("FAILED: %s\n", what);
      ++failures;
    }
  };
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 13) - 6;
  // Planted through the bits: a fast-math build may fold a NaN-producing expression away.
  x[37] = bits_float(0x7fc00000u);   // NaN
  x[500] = bits_float(0x7f800000u);  // +inf
  x[501] = bits_float(0xff800000u);  // -inf
  const probe::health h = probe::compute_health(probe::view(x));
  check(h.valid, "health valid");
  check(h.nan == 1, "one NaN counted");
  check(h.pos_inf == 1 && h.neg_inf == 1, "the infinities counted");
  check(h.finite == 997, "997 finite values");
  check(h.min == -6 && h.max == 6, "min and max of the finite values");

  std::vector<double> d(64, 1.5);
  uint64_t nan_bits = 0x7ff8000000000000ull;
  std::memcpy(&d[9], &nan_bits, sizeof nan_bits);
  const probe::health hd = probe::compute_health(probe::view(d));
  check(hd.nan == 1 && hd.finite == 63 && hd.mean == 1.5, "double NaN counted, mean of the rest");

  const std::string text = probe::format("{}", probe::view(x.data(), {8}));
  check(text.find("-6.") != std::string::npos, "tensor text");
  const std::string special = probe::format("{} {} {}", x[37], x[500], x[501]);
  check(special == "nan inf -inf", "scalars print as nan inf -inf");

  {  // an op whose output holds the NaN: dumped with its stats, and a non-finite break
    probe::op op("planted", "Test");
    op.input("x", x);
    op.output("y", x);
  }
  probe::flush();
  std::printf("%s\n", failures ? "fast-math checks failed" : "fast-math checks ok");
  return failures ? 1 : 0;
}
