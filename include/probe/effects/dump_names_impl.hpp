// dump_names: definitions (see dump_names.hpp).
#pragma once
#include "dump_names.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API std::string sanitize_name(const std::string& raw, size_t cap) {
  std::string s;
  s.reserve(raw.size() < cap ? raw.size() : cap);
  for (unsigned char c : raw) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    s += ok ? static_cast<char>(c) : '_';
  }
  if (s.empty()) s = "_";
  if (s.size() > cap) {
    char tag[16];
    snprintf(tag, sizeof tag, "-%08x", name_hash(raw));
    s.resize(cap > 9 ? cap - 9 : 0);
    s += tag;
  }
  return s;
}

PROBE_API std::string op_file_stem(uint64_t seq, const std::string& op) {
  char head[32] = "op_";
  char* end = put_uint(head + 3, seq, 6);
  *end++ = '.';
  std::string s(head, static_cast<size_t>(end - head));
  s += sanitize_name(op, k_op_name_cap);
  return s;
}

PROBE_API std::string tensor_file_name(uint64_t seq, const std::string& op, bool is_input,
                                        const std::string& slot, const char* ext) {
  return op_file_stem(seq, op) + (is_input ? ".in." : ".out.") +
         sanitize_name(slot, k_slot_name_cap) + ext;
}

PROBE_API rank_info detect_rank() noexcept {
  static const char* const pairs[][2] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                         {"PMI_RANK", "PMI_SIZE"},
                                         {"SLURM_PROCID", "SLURM_NTASKS"},
                                         {"RANK", "WORLD_SIZE"}};
  rank_info r;
  for (const auto& p : pairs) {
    const char* rank = getenv(p[0]);
    if (!rank || !*rank) continue;
    char* end = nullptr;
    const long v = strtol(rank, &end, 10);
    if (*end || v < 0) continue;
    r.rank = static_cast<int>(v);
    const char* world = getenv(p[1]);
    r.world = world ? atoi(world) : 0;
    return r;
  }
  return r;
}

PROBE_API int lock_dir(const std::string& dir, int* fd_out) noexcept {
  const std::string lock = join_path(dir, ".probe.lock");
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd);
    return e;
  }
  *fd_out = fd;
  return 0;
}

PROBE_API int open_run_dir(const std::string& base, run_dir* out, std::string* where) {
  std::string dir = base;
  const rank_info r = detect_rank();
  if (r.rank >= 0 && r.world > 1) {
    char sub[32];
    snprintf(sub, sizeof sub, "rank_%04d", r.rank);
    dir = join_path(base, sub);
  }
  *where = dir;
  if (int e = make_dirs(dir)) return e;
  int fd = -1;
  int e = lock_dir(dir, &fd);
  if (e == EWOULDBLOCK) {
    char host[128] = "host";
    gethostname(host, sizeof host - 1);
    const std::string own = join_path(dir, sanitize_name(host, 64) + "_" + std::to_string(getpid()));
    *where = own;
    if (int e2 = make_dirs(own)) return e2;
    e = lock_dir(own, &fd);
    if (e == 0)
      out->note = dir + " holds another process's live dump; this process writes to " + own;
    dir = own;
  }
  if (e) return e;
  out->path = dir;
  out->lock_fd = fd;
  return 0;
}

}  // namespace detail
PROBE_END_NAMESPACE
