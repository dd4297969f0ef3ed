// dump_names: definitions (see dump_names.hpp).
#pragma once
#include "dump_names.hpp"
#include "../util/metric_line.h"  // probe_env_rank

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API std::string sanitize_name(const std::string& raw, size_t cap) {
  std::string s;
  s.reserve(raw.size() < cap ? raw.size() : cap);
  for (char c : raw) {  // bytes past ASCII compare as no letter, signed or not
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    s += ok ? c : '_';
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
  rank_info r;
  long rank = 0;
  int world = 0;
  if (probe_env_rank(&rank, &world)) {
    r.rank = static_cast<int>(rank);
    r.world = world;
  }
  return r;
}

PROBE_API int lock_dir(int dirfd, int* fd_out) noexcept {
  int fd = -1;
  if (int e = open_regular_at(dirfd, ".probe.lock", &fd)) return e;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd);
    return e;
  }
  *fd_out = fd;
  return 0;
}

// Opens (creating it) the folder `name` that probe makes inside `parent`.
inline int open_made_dir(int parent, const std::string& parent_path, const std::string& name, std::string* path,
                         int* fd, std::string* where) {
  *path = join_path(parent_path, name);
  *where = *path;
  const int e = open_subdir(parent, name.c_str(), fd);
  if (e == ELOOP) *where = *path + " is a symbolic link, which probe does not follow in a folder it makes";
  return e;
}

PROBE_API int open_run_dir(const std::string& base, run_dir* out, std::string* where, bool own) {
  *where = base;
  if (int e = make_dirs(base)) return e;
  // The folder given is the user's: followed even if it is a link.
  int base_fd = ::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (base_fd < 0) return errno;
  std::string dir = base;
  int fd = base_fd;
  const rank_info r = detect_rank();
  if (r.rank >= 0 && r.world > 1) {
    char sub[32];
    snprintf(sub, sizeof sub, "rank_%04d", r.rank);
    const int e = open_made_dir(base_fd, base, sub, &dir, &fd, where);
    ::close(base_fd);
    if (e) return e;
  }
  int lock = -1;
  int e = own ? EWOULDBLOCK : lock_dir(fd, &lock);
  if (e == EWOULDBLOCK) {
    char host[128] = "host";
    gethostname(host, sizeof host - 1);
    std::string mine;
    int mine_fd = -1;
    e = open_made_dir(fd, dir, sanitize_name(host, 64) + "_" + std::to_string(getpid()), &mine, &mine_fd, where);
    if (!e) e = lock_dir(mine_fd, &lock);
    if (e == 0 && !own) out->note = dir + " holds another live dump (of another process, or of a second copy of probe in this one: "
                                     "a library that links its own); this one writes to " + mine;
    ::close(fd);
    fd = mine_fd;
    dir = mine;
  }
  if (e) {
    if (fd >= 0) ::close(fd);
    return e;
  }
  *where = dir;
  out->path = dir;
  out->fd = fd;
  out->lock_fd = lock;
  return 0;
}

}  // namespace detail
PROBE_END_NAMESPACE
