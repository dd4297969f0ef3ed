/* The metric line "<name>: <value>" printed where probe is compiled out (PROBE_DISABLE), in C
 * and C++ alike: the value as printf's %g at the fewest significant digits that read back,
 * but never fewer than its integer digits below 1e16 (100, not 1e+02), which is what the
 * compiled library writes (util/float_text.hpp's write_compact), so nightly jobs grep the
 * same line from every build. Control characters in the name print as '?'. */
#ifndef PROBE_UTIL_METRIC_LINE_H
#define PROBE_UTIL_METRIC_LINE_H
#include <stdio.h>
#include <stdlib.h>

/* The first %g precision to try for a finite value: its integer digits below 1e16 (so 100 is
 * not written 1e+02), else 1. Shared with write_compact. */
static inline int probe_metric_first_precision(double value) {
  double a = value < 0 ? -value : value;
  int digits = 1;
  while (a >= 10 && digits < 16) {
    a /= 10;
    ++digits;
  }
  return a >= 10 ? 1 : digits; /* 1e16 and above: the exponent form */
}

/* The MPI rank and world size the launcher's environment gives (Open MPI, PMI, Slurm,
 * torchrun's RANK/WORLD_SIZE): from the first pair whose rank is a non-negative integer, 1
 * with *rank and *world (0 when the size is not given); 0 when none. The C++ side
 * (effects/dump_names.hpp's detect_rank) reads it from here too. */
static inline int probe_env_rank(long* rank, int* world) {
  static const char* const pairs[][2] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                         {"PMI_RANK", "PMI_SIZE"},
                                         {"SLURM_PROCID", "SLURM_NTASKS"},
                                         {"RANK", "WORLD_SIZE"}};
  size_t k;
  for (k = 0; k < sizeof pairs / sizeof pairs[0]; ++k) {
    const char* r = getenv(pairs[k][0]);
    const char* w = getenv(pairs[k][1]);
    char* end = NULL;
    long v;
    if (!r || !*r) continue;
    v = strtol(r, &end, 10);
    if (*end || v < 0) continue;
    *rank = v;
    *world = w ? atoi(w) : 0;
    return 1;
  }
  return 0;
}

/* Under MPI (several ranks) the line starts with "[rank N] ", as the compiled library
 * writes it. */
static inline int probe_metric_rank_prefix(char* out, size_t cap) {
  long rank;
  int world;
  if (!probe_env_rank(&rank, &world) || world < 2) return 0;
  return snprintf(out, cap, "[rank %ld] ", rank);
}

static inline void probe_metric_line(const char* name, double value) {
  char num[40], line[512];
  int p, n = 0, i;
  if (value != value || value - value != 0) {
    snprintf(num, sizeof num, "%s", value != value ? "nan" : value < 0 ? "-inf" : "inf");
  } else {
    for (p = probe_metric_first_precision(value); p <= 17; ++p) {
      snprintf(num, sizeof num, "%.*g", p, value);
      /* A locale's decimal comma reads back with strtod in that locale; the line uses '.'. */
      if (strtod(num, NULL) == value) break;
    }
    for (i = 0; num[i]; ++i)
      if (!((num[i] >= '0' && num[i] <= '9') || num[i] == '-' || num[i] == '+' || num[i] == 'e')) num[i] = '.';
  }
  n = probe_metric_rank_prefix(line, 32);
  if (n < 0 || n >= 32) n = 0;
  /* Without casts: the header compiles in C and in C++ builds with -Wold-style-cast. */
  for (i = 0; name && name[i] && n < 400; ++i) {
    const int code = name[i] & 0xff;
    line[n] = name[i];
    if (code < 0x20 || code == 0x7f) line[n] = '?';
    ++n;
  }
  /* n <= 400: the rest of the line has room for ": ", the number and the newline */
  snprintf(line + n, sizeof line - 400, ": %s\n", num);
  fputs(line, stdout);
  fflush(stdout);
}

#endif /* PROBE_UTIL_METRIC_LINE_H */
