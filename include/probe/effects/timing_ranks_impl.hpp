// timing_ranks.hpp: definitions. The parts are read as the trace writer makes them: one event
// per line between the opening `{"traceEvents":[` and the line that starts with `]`; each
// event's top-level "pid" and "ts" are rewritten (a scan that skips strings and nested
// objects, so that arguments named "ts" are left alone).
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "../util/immortal.hpp"
#include "../core/context.hpp"
#include "../util/fs.hpp"
#include "../util/int_text.hpp"
#include "../util/log.hpp"
#include "dump_names.hpp"
#include "timing_ranks.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {
namespace rank_trace_impl {

struct state {
  std::string target;  // the trace file every rank names
  std::string job;     // the launcher's name for the job ("" when it gives none)
  int rank = -1, world = 0;
};
inline state& current() {
  static immortal<state> s;  // never destroyed: used at exit
  return s.get();
}

// FILE.rank_0003.part, or FILE.job_<job>.rank_0003.part: two jobs that trace to one file at
// once (two runs of a parameter sweep) each merge their own ranks' parts.
inline std::string job_stem(const std::string& path, const std::string& job) {
  return job.empty() ? path : path + ".job_" + job;
}
inline std::string part_name(const std::string& path, const std::string& job, int rank, const char* what) {
  char b[32];
  snprintf(b, sizeof b, ".rank_%04d.%s", rank, what);
  return job_stem(path, job) + b;
}

// The job every rank of one launch shares, as the launchers name it: PMIx (Open MPI 4 and 5,
// Slurm with PMIx), Open MPI's own, Slurm's job and step, made a file name as op names are
// (sanitize_name, 64 bytes at most). "" when no launcher names one (MPICH's Hydra): the
// parts are named by the trace file and rank alone.
inline std::string launcher_job() {
  std::string job;
  if (const char* v = getenv("PMIX_NAMESPACE")) job = v;
  else if (const char* o = getenv("OMPI_MCA_ess_base_jobid")) job = o;
  else if (const char* j = getenv("SLURM_JOB_ID")) {
    job = j;
    if (const char* st = getenv("SLURM_STEP_ID")) job += std::string(".") + st;
  }
  return job.empty() ? job : sanitize_name(job, 64);
}

inline bool read_all(const std::string& path, std::string* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out->clear();
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return n == 0;
    }
    out->append(buf, static_cast<size_t>(n));
  }
}

// Where the value of top-level member `key` starts in the object `ev` (npos: absent).
inline size_t member_value(const std::string& ev, const char* key) {
  const std::string quoted = std::string("\"") + key + "\":";
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < ev.size(); ++i) {
    const char c = ev[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') --depth;
    else if (c == '"') {
      if (depth == 1 && ev.compare(i, quoted.size(), quoted) == 0) return i + quoted.size();
      in_string = true;
    }
  }
  return std::string::npos;
}

// Replaces the number at `at` in `ev` by `text`.
inline void replace_number(std::string& ev, size_t at, const std::string& text) {
  size_t end = at;
  while (end < ev.size() && (ev[end] == '-' || ev[end] == '.' || (ev[end] >= '0' && ev[end] <= '9'))) ++end;
  ev.replace(at, end - at, text);
}

// "1234.567" (microseconds, as put_us writes them) as nanoseconds.
inline int64_t us_text_to_ns(const char* p) {
  const bool neg = *p == '-';
  if (neg) ++p;
  int64_t whole = 0, frac = 0;
  while (*p >= '0' && *p <= '9') whole = whole * 10 + (*p++ - '0');
  int digits = 0;
  if (*p == '.')
    for (++p; *p >= '0' && *p <= '9'; ++p)
      if (digits < 3) frac = frac * 10 + (*p - '0'), ++digits;
  while (digits++ < 3) frac *= 10;
  const int64_t ns = whole * 1000 + frac;
  return neg ? -ns : ns;
}

// Appends the events of one part, moved to process `rank` and shifted by `shift_ns`; its own
// process metadata is left out (the merged trace names the ranks).
inline bool append_part(const std::string& text, int rank, int64_t shift_ns, std::string* out, bool* first) {
  const size_t open = text.find("[\n");
  if (text.compare(0, 15, "{\"traceEvents\":") != 0 || open == std::string::npos) return false;
  for (size_t at = open + 2; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string ev = text.substr(at, end - at);
    at = end + 1;
    if (!ev.empty() && ev[0] == ']') return true;
    if (!ev.empty() && ev.back() == ',') ev.pop_back();
    if (ev.empty() || ev[0] != '{') continue;
    if (ev.find("\"process_name\"") != std::string::npos || ev.find("\"process_sort_index\"") != std::string::npos)
      continue;
    const size_t ts = member_value(ev, "ts");
    if (ts != std::string::npos) {
      std::string moved;
      append_us(moved, us_text_to_ns(ev.c_str() + ts) + shift_ns);
      replace_number(ev, ts, moved);
    }
    const size_t pid = member_value(ev, "pid");
    if (pid != std::string::npos) replace_number(ev, pid, std::to_string(rank));
    if (!*first) out->append(",\n");
    *first = false;
    out->append(ev);
  }
  return false;  // no closing line: the part was cut
}

}  // namespace rank_trace_impl

PROBE_API std::string rank_trace_part(const std::string& path) {
  rank_trace_impl::state& s = rank_trace_impl::current();
  const rank_info r = detect_rank();
  if (path.empty() || r.rank < 0 || r.world < 2) {
    s.target.clear();
    return path;
  }
  s.target = path;
  s.job = rank_trace_impl::launcher_job();
  s.rank = r.rank;
  s.world = r.world;
  // What a killed earlier run left must not make this one merge early.
  ::unlink(rank_trace_impl::part_name(path, s.job, r.rank, "clock").c_str());
  if (r.rank == 0) ::unlink((rank_trace_impl::job_stem(path, s.job) + ".merging").c_str());
  return rank_trace_impl::part_name(path, s.job, r.rank, "part");
}

PROBE_API bool merge_rank_traces(const std::string& path, const std::string& job, int world, std::string* error) {
  using namespace rank_trace_impl;
  std::vector<int64_t> wall(static_cast<size_t>(world)), sync(static_cast<size_t>(world));
  bool all_sync = true;
  for (int r = 0; r < world; ++r) {
    std::string clock;
    long long w = 0, s = 0;
    if (!read_all(part_name(path, job, r, "clock"), &clock) || sscanf(clock.c_str(), "%lld %lld", &w, &s) != 2) {
      *error = part_name(path, job, r, "clock") + ": missing or unreadable";
      return false;
    }
    wall[static_cast<size_t>(r)] = w;
    sync[static_cast<size_t>(r)] = s;
    all_sync = all_sync && s != 0;
  }
  std::string out = "{\"traceEvents\":[\n";
  bool first = true;
  for (int r = 0; r < world; ++r) {
    std::string text;
    // Onto rank 0's clock: through the shared instant when every rank took one, else through
    // each rank's wall clock minus its monotonic clock.
    const size_t i = static_cast<size_t>(r);
    const int64_t shift = all_sync ? sync[0] - sync[i] : wall[i] - wall[0];
    if (!read_all(part_name(path, job, r, "part"), &text) || !append_part(text, r, shift, &out, &first)) {
      *error = part_name(path, job, r, "part") + ": missing or cut short";
      return false;
    }
    for (const char* meta : {"process_name", "process_sort_index"}) {
      out += first ? "" : ",\n";
      first = false;
      out += std::string("{\"name\":\"") + meta + "\",\"ph\":\"M\",\"pid\":" + std::to_string(r) + ",\"tid\":0,\"args\":{";
      out += meta[8] == 'n' ? "\"name\":\"rank " + std::to_string(r) + "\"}}" : "\"sort_index\":" + std::to_string(r) + "}}";
    }
  }
  out += "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"probe " PROBE_VERSION_STRING "\",\"ranks\":" +
         std::to_string(world) + (job.empty() ? std::string() : ",\"job\":\"" + job + "\"") + ",\"clock_alignment\":\"" +
         (all_sync ? "MPI_Init barrier" : "wall clock") + "\"}}\n";
  atomic_file f;
  int e = f.open(path);
  if (!e) e = write_all(f.fd(), out.data(), out.size());
  if (!e) e = f.commit();
  if (e) {
    *error = path + ": " + strerror(e);
    return false;
  }
  for (int r = 0; r < world; ++r) {
    ::unlink(part_name(path, job, r, "part").c_str());
    ::unlink(part_name(path, job, r, "clock").c_str());
  }
  return true;
}

PROBE_API void rank_trace_finish() noexcept {
  using namespace rank_trace_impl;
  try {
    const state s = current();
    if (s.target.empty()) return;
    const std::string clock = std::to_string(wall_ns() - mono_ns()) + " " + std::to_string(g_rank_sync_ns) + "\n";
    atomic_file f;
    int e = f.open(part_name(s.target, s.job, s.rank, "clock"));
    if (!e) e = write_all(f.fd(), clock.data(), clock.size());
    if (!e) e = f.commit();
    if (e) return;
    for (int r = 0; r < s.world; ++r)
      if (::access(part_name(s.target, s.job, r, "clock").c_str(), F_OK) != 0) return;  // a later rank merges
    // Every rank is done: one of those that see it merges (the lock), the others leave.
    const std::string lock = job_stem(s.target, s.job) + ".merging";
    const int fd = ::open(lock.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) return;
    ::close(fd);
    std::string error;
    // A rank that saw every clock file as another finished merging finds them gone: quiet.
    if (!merge_rank_traces(s.target, s.job, s.world, &error) &&
        ::access(part_name(s.target, s.job, s.rank, "clock").c_str(), F_OK) == 0)
      log("timing trace: the ranks' traces were not merged into %s (%s); each rank's part stays", s.target.c_str(),
          error.c_str());
    ::unlink(lock.c_str());
  } catch (...) {
  }
}

}  // namespace detail
PROBE_END_NAMESPACE
