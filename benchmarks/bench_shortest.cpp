// Shortest round-trip text of double and float: detail/shortest_digits.hpp against
// std::to_chars(..., std::chars_format::scientific), which writes the same characters, on
// the same inputs in the same run. Also the one-time cost of computing the powers-of-ten
// table on first use. Results in benchmarks/README.md ("Shortest float text").
#include <probe/util/shortest_digits.hpp>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "harness.hpp"

namespace {

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class F>
void compare(const char* name, const char* base_name, const std::vector<F>& xs) {
  size_t k = 0, j = 0;
  const size_t mask = xs.size() - 1;
  auto r = bench::time_pair_ns(
      [&] {
        char buf[32];
        char* end = probe::detail::write_scientific_shortest(buf, xs[k++ & mask]);
        bench::do_not_optimize(end);
        bench::clobber();
      },
      [&] {
        char buf[32];
        char* end = std::to_chars(buf, buf + sizeof buf, xs[j++ & mask], std::chars_format::scientific).ptr;
        bench::do_not_optimize(end);
        bench::clobber();
      },
      200000);
  bench::print_pair(name, r, base_name);
}

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  uint64_t state = 42;
  std::vector<double> random_doubles, short_doubles;
  std::vector<float> random_floats;
  while (random_doubles.size() < 4096) {
    const uint64_t b = splitmix(state);
    double d;
    std::memcpy(&d, &b, 8);
    if ((b & 0x7ff0000000000000ull) != 0x7ff0000000000000ull) random_doubles.push_back(d);
  }
  while (short_doubles.size() < 4096)  // "measured" values: up to 6 digits, scaled
    short_doubles.push_back(static_cast<double>(splitmix(state) % 1000000) / 1000.0);
  while (random_floats.size() < 4096) {
    const uint32_t b = static_cast<uint32_t>(splitmix(state));
    float f;
    std::memcpy(&f, &b, 4);
    if ((b & 0x7f800000u) != 0x7f800000u) random_floats.push_back(f);
  }
  std::printf("== shortest scientific text vs std::to_chars (scientific)\n");
  compare("shortest_digits: random double bit patterns", "std::to_chars: random double bit patterns",
          random_doubles);
  compare("shortest_digits: doubles of <= 6 digits", "std::to_chars: doubles of <= 6 digits", short_doubles);
  compare("shortest_digits: random float bit patterns", "std::to_chars: random float bit patterns",
          random_floats);

  std::printf("== one-time powers-of-ten table (617 x 126 bits, from exact big integers)\n");
  auto t = bench::time_ns(
      [] {
        probe::detail::shortest_impl::pow10_table<1> table;
        bench::do_not_optimize(table.g[7]);
        bench::clobber();
      },
      20);
  bench::print_row("pow10_table construction", t);
  return 0;
}
