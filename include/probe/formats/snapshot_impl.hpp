// snapshot: definitions (see snapshot.hpp).
#pragma once
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fs.hpp"
#include "json_read.hpp"
#include "snapshot.hpp"

PROBE_BEGIN_NAMESPACE
namespace snapshot {
namespace detail_ {

inline bool is_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

inline dtype dtype_named(const std::string& s) {
  for (int i = 1; i < dtype_count; ++i)
    if (s == dtype_name(static_cast<dtype>(i))) return static_cast<dtype>(i);
  return dtype::invalid;
}

inline double number_or_nan(const json::value& v) { return v.is_number() ? v.as_double() : __builtin_nan(""); }

inline bool read_stats(const json::value& s, health* h) {
  if (!s.is_object()) return false;
  h->valid = true;
  h->count = s.get_int("count");
  h->finite = s.get_int("finite");
  h->min = number_or_nan(s.get("min"));
  h->max = number_or_nan(s.get("max"));
  h->mean = number_or_nan(s.get("mean"));
  h->std = number_or_nan(s.get("std"));
  h->nan = s.get_int("nan");
  h->pos_inf = s.get_int("posinf");
  h->neg_inf = s.get_int("neginf");
  h->zero = s.get_int("zero");
  return true;
}

// A file name the snapshot may name: a plain name inside its folder.
inline bool plain_name(const std::string& f) {
  return !f.empty() && f != "." && f != ".." && f.find('/') == std::string::npos && f.find('\0') == std::string::npos;
}

// A piece's file: "<snapshot folder>/<file>", both plain names (a sibling snapshot folder).
inline bool sibling_name(const std::string& f) {
  const size_t slash = f.find('/');
  return slash != std::string::npos && plain_name(f.substr(0, slash)) && plain_name(f.substr(slash + 1));
}

inline bool read_pieces(const json::value& list, tensor_entry* t) {
  if (list.is_null()) return true;
  if (!list.is_array()) return false;
  for (size_t i = 0; i < list.size(); ++i) {
    const json::value& p = list[i];
    piece x;
    x.key = p.get_string("key");
    x.file = p.get_string("file");
    const json::value *o = p.find("offset"), *b = p.find("bytes"), *a = p.find("at");
    if (!sibling_name(x.file) || !o || !b || !a || !o->is_integer() || !b->is_integer() || !a->is_integer() ||
        o->as_int() < 0 || b->as_int() < 0 || a->as_int() < 0)
      return false;
    x.offset = static_cast<uint64_t>(o->as_int());
    x.bytes = static_cast<uint64_t>(b->as_int());
    x.at = static_cast<uint64_t>(a->as_int());
    t->pieces.push_back(std::move(x));
  }
  return true;
}

inline bool read_tensor(const json::value& v, const char* side, size_t index, tensor_entry* t, std::string* why) {
  const std::string where = std::string(side) + "[" + std::to_string(index) + "]";
  if (!v.is_object()) return *why = where + " is not an object", false;
  t->slot = v.get_string("slot");
  t->key = v.get_string("key");
  t->file = v.get_string("file");
  t->producer = v.get_string("producer");
  t->inout = v.get("inout").is_bool() && v.get("inout").as_bool();
  t->implicit = v.get("implicit").is_bool() && v.get("implicit").as_bool();
  t->prior = v.get_string("prior");
  if (t->slot.empty()) return *why = where + " has no \"slot\"", false;
  const bool unread = t->implicit && !t->prior.empty() && t->file.empty();
  if (!unread && !plain_name(t->file)) return *why = where + " (" + t->slot + "): bad file name '" + t->file + "'", false;
  if (unread && !read_pieces(v.get("pieces"), t)) return *why = where + " (" + t->slot + "): bad \"pieces\"", false;
  const std::string dt = v.get_string("dtype");
  t->type = dtype_named(dt);
  if (t->type == dtype::invalid) return *why = where + " (" + t->slot + "): unknown dtype '" + dt + "'", false;
  const json::value& shape = v.get("shape");
  if (!shape.is_array() || shape.size() > static_cast<size_t>(max_dims))
    return *why = where + " (" + t->slot + "): \"shape\" must be a list of at most 8 sizes", false;
  t->ndim = static_cast<int>(shape.size());
  int64_t total = 1;
  for (int i = 0; i < t->ndim; ++i) {
    const json::value& d = shape[static_cast<size_t>(i)];
    if (!d.is_integer() || d.as_int() < 0 || d.as_int() > (int64_t{1} << 48))
      return *why = where + " (" + t->slot + "): bad size in \"shape\"", false;
    t->shape[i] = d.as_int();
    if (t->shape[i] && total > (int64_t{1} << 48) / t->shape[i])
      return *why = where + " (" + t->slot + "): \"shape\" is too large", false;
    total *= t->shape[i];
  }
  t->have_stats = read_stats(v.get("stats"), &t->stats);
  if (t->have_stats) t->stats.type = t->type;
  return true;
}

inline int compare_names(const void* a, const void* b) noexcept {
  return strcmp(*static_cast<const char* const*>(a), *static_cast<const char* const*>(b));
}

// The visible entries of dir, sorted (op_000012 after op_000011). qsort, not <algorithm>:
// that header would cost every header-only TU more than this whole file.
inline void sorted_children(const std::string& dir, std::vector<std::string>* out) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  std::vector<const char*> order;
  for (const std::string& n : names) order.push_back(n.c_str());
  if (!order.empty()) qsort(order.data(), order.size(), sizeof(const char*), compare_names);
  for (const char* n : order) out->push_back(n);
}

// Whether path names anything, a link or a FIFO included (never followed, never opened).
inline bool exists_here(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// Snapshot folders directly under dir: those with an entry named snapshot.json of any kind,
// so that a damaged one (a FIFO or a link in its place) is listed and then reported
// unreadable, never left out. A folder without one holds only pieces other snapshots name (a
// bundle's producers).
inline void children_with_snapshots(const std::string& dir, std::vector<std::string>* out) {
  std::vector<std::string> names;
  sorted_children(dir, &names);
  for (const std::string& n : names) {
    const std::string sub = detail::join_path(dir, n);
    struct stat st;
    if (::lstat(sub.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;  // links are not followed
    if (exists_here(detail::join_path(sub, "snapshot.json"))) out->push_back(sub);
  }
}

// One path without glob characters; false when it names no snapshot.
inline bool expand(const std::string& path, std::vector<std::string>* dirs) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const size_t base = p.rfind('/');
  if ((base == std::string::npos ? p : p.substr(base + 1)) == "snapshot.json" && is_file(p)) {
    dirs->push_back(base == std::string::npos ? "." : base == 0 ? "/" : p.substr(0, base));
    return true;
  }
  if (!detail::is_dir(p)) return false;
  if (exists_here(detail::join_path(p, "snapshot.json"))) {  // read() says what is wrong with it
    dirs->push_back(p);
    return true;
  }
  const size_t before = dirs->size();
  // A dump folder: its snapshots/, or each rank folder's.
  const std::string own = detail::join_path(p, "snapshots");
  if (detail::is_dir(own)) {
    children_with_snapshots(own, dirs);
  } else {
    std::vector<std::string> names;
    sorted_children(p, &names);
    for (const std::string& n : names) {
      const std::string sub = detail::join_path(detail::join_path(p, n), "snapshots");
      if (detail::is_dir(sub)) children_with_snapshots(sub, dirs);
    }
  }
  // A folder of snapshot folders (a snapshots/ folder itself).
  if (dirs->size() == before) children_with_snapshots(p, dirs);
  return dirs->size() > before;
}

}  // namespace detail_

PROBE_API bool read(const std::string& dir, info* out, std::string* error) {
  const std::string path = detail::join_path(dir, "snapshot.json");
  try {
    // probe writes snapshot.json as a regular file: a link or a FIFO in its place was put
    // there by someone else, and is neither followed nor waited on.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno == ELOOP) return *error = path + ": a symbolic link, not a snapshot file; not followed", false;
    if (fd < 0) return *error = path + ": cannot open: " + strerror(errno), false;
    const detail::fd_guard close_fd(fd);
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return *error = path + ": not a regular file", false;
    std::string text;
    char buf[1 << 14];
    ssize_t n = 0;
    while (text.size() <= max_json_bytes && ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)))
      if (n > 0) text.append(buf, static_cast<size_t>(n));
    if (n < 0) return *error = path + ": read error: " + strerror(errno), false;
    if (text.size() > max_json_bytes) return *error = path + ": larger than 16 MiB, not a snapshot", false;
    json::value doc;
    std::string why;
    if (!json::parse(text, doc, &why) || !doc.is_object())
      return *error = path + ": " + (why.empty() ? "not a JSON object" : why + " (truncated or corrupt)"), false;
    if (doc.get_string("format").compare(0, 15, "probe-snapshot-") != 0)
      return *error = path + ": not a probe snapshot (no \"format\": \"probe-snapshot-1\")", false;
    info s;
    s.dir = dir;
    s.status = doc.get_string("status");
    if (s.status != "running" && s.status != "complete" && s.status != "exception")
      return *error = path + ": unknown status '" + s.status + "'", false;
    s.op = doc.get_string("op");
    s.type = doc.get_string("type");
    s.seq = static_cast<uint64_t>(doc.get_int("seq"));
    s.step = doc.get_int("step");
    s.occurrence = static_cast<uint64_t>(doc.get_int("occurrence"));
    const json::value& attrs = doc.get("attrs");
    if (!attrs.is_null() && !attrs.is_object()) return *error = path + ": \"attrs\" is not an object", false;
    s.attrs = attrs.is_object() ? attrs : json::value::object();
    for (int side = 0; side < 2; ++side) {
      const char* name = side ? "outputs" : "inputs";
      const json::value& list = doc.get(name);
      if (!list.is_array() && !list.is_null()) return *error = path + ": \"" + name + "\" is not a list", false;
      for (size_t i = 0; i < list.size(); ++i) {
        tensor_entry t;
        if (!detail_::read_tensor(list[i], name, i, &t, &why)) return *error = path + ": " + why, false;
        (side ? s.outputs : s.inputs).push_back(std::move(t));
      }
    }
    *out = std::move(s);
    return true;
  } catch (...) {
    *error = path + ": out of memory";
    return false;
  }
}

PROBE_API bool find(const std::string& paths, std::vector<std::string>* dirs, std::string* error) {
  try {
    size_t at = 0;
    while (at <= paths.size()) {
      size_t end = paths.find('\n', at);
      if (end == std::string::npos) end = paths.size();
      const std::string p = paths.substr(at, end - at);
      at = end + 1;
      if (p.empty()) continue;
      struct stat st;
      const bool exists = ::stat(p.c_str(), &st) == 0;  // a path that exists is taken as written
      const int stat_errno = exists ? 0 : errno;
      if (!exists && p.find_first_of("*?[") != std::string::npos) {
        glob_t g;
        memset(&g, 0, sizeof g);
        const int rc = glob(p.c_str(), 0, nullptr, &g);
        bool any = false;
        for (size_t i = 0; rc == 0 && i < g.gl_pathc; ++i) any = detail_::expand(g.gl_pathv[i], dirs) || any;
        globfree(&g);
        if (!any) return *error = p + ": the pattern matches no snapshot", false;
        continue;
      }
      if (!detail_::expand(p, dirs)) {
        if (!exists) return *error = p + ": " + strerror(stat_errno), false;
        return *error = p + ": holds no snapshot (snapshot.json), dump folder with snapshots/, or folder of snapshots", false;
      }
    }
    if (dirs->empty()) return *error = "no snapshot path given", false;
    return true;
  } catch (...) {
    *error = "out of memory listing snapshots";
    return false;
  }
}

PROBE_API std::string describe(const tensor_entry& t) {
  std::string s = dtype_name(t.type);
  s += '[';
  for (int i = 0; i < t.ndim; ++i) {
    if (i) s += ',';
    s += std::to_string(t.shape[i]);
  }
  return s + "]";
}

}  // namespace snapshot
PROBE_END_NAMESPACE
