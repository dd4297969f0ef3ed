// flags: reading flag text into options (tokens, values, flag files; see flags.hpp). The
// state, publication and entry points are in flags_impl.hpp.
#pragma once
#include <sys/stat.h>
#include <unistd.h>

#include "flags.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {
PROBE_API bool tokenize(const char* s, std::vector<std::string>& out, std::string* err) {
  std::string cur;
  bool in_token = false;
  for (const char* p = s; *p;) {
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_token) out.push_back(cur);
      cur.clear();
      in_token = false;
      ++p;
    } else if (c == '\'' || c == '"') {
      in_token = true;
      const char q = c;
      ++p;
      while (*p && *p != q) {
        if (q == '"' && *p == '\\' && p[1]) {
          ++p;
          switch (*p) {
            case 'n': cur += '\n'; break;
            case 't': cur += '\t'; break;
            default: cur += *p; break;
          }
          ++p;
        } else {
          cur += *p++;
        }
      }
      if (!*p) {
        *err = std::string("unterminated ") + (q == '"' ? "double" : "single") + " quote in flags";
        return false;
      }
      ++p;
    } else {
      in_token = true;
      cur += c;
      ++p;
    }
  }
  if (in_token) out.push_back(cur);
  return true;
}

PROBE_API bool parse_bool(const std::string& v, bool* out) {
  std::string l;
  for (char c : v) l += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (l == "1" || l == "true" || l == "on" || l == "yes") return *out = true, true;
  if (l == "0" || l == "false" || l == "off" || l == "no") return *out = false, true;
  return false;
}

PROBE_API bool parse_size(const std::string& v, uint64_t* out) {
  if (v.empty() || v[0] == '-' || v[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  const double num = strtod(v.c_str(), &end);
  if (end == v.c_str() || errno != 0 || !(num >= 0)) return false;
  // Decimal digits and one point only: strtod also reads "0x10", "1e6" and "inf"
  int points = 0;
  for (const char* c = v.c_str(); c != end; ++c)
    if (*c == '.' ? ++points > 1 : (*c < '0' || *c > '9')) return false;
  std::string suf(end);
  for (char& c : suf) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  double mul = 1;
  if (!suf.empty()) {
    switch (suf[0]) {
      case 'K': mul = 1024.0; break;
      case 'M': mul = 1024.0 * 1024; break;
      case 'G': mul = 1024.0 * 1024 * 1024; break;
      case 'T': mul = 1024.0 * 1024 * 1024 * 1024; break;
      case 'B': mul = 1; break;
      default: return false;
    }
    const std::string rest = suf.substr(1);  // "B" alone, or K, M, G, T then "", "B" or "iB"
    if (!(rest.empty() || (suf[0] != 'B' && (rest == "B" || rest == "IB")))) return false;
  }
  const double bytes = num * mul;
  if (bytes > 1.8e19 || bytes != static_cast<double>(static_cast<uint64_t>(bytes))) return false;
  *out = static_cast<uint64_t>(bytes);
  return true;
}

PROBE_API bool parse_int(const std::string& v, int64_t* out) {
  if (v.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long x = strtoll(v.c_str(), &end, 10);
  if (*end != '\0' || errno != 0) return false;
  *out = x;
  return true;
}

PROBE_API bool choice_allowed(const flag_info& f, const std::string& v) {
  const char* c = strchr(f.help, ':');
  if (!c) return false;
  ++c;
  while (*c == ' ') ++c;
  std::string cur;
  for (;; ++c) {
    if (*c == '|' || *c == ' ' || *c == '\0' || *c == '(') {
      if (cur == v) return true;
      cur.clear();
      if (*c != '|') return false;
    } else {
      cur += *c;
    }
  }
}

PROBE_API bool set_flag(options& o, int index, const std::string& v, std::string* err) {
  const flag_info& f = k_flags[index];
  bool b = false;
  uint64_t sz = 0;
  int64_t n = 0;
  switch (f.kind) {
    case flag_kind::boolean:
      if (!parse_bool(v, &b)) {
        *err = "expects true|false|on|off|1|0";
        return false;
      }
      break;
    case flag_kind::size:
      if (!parse_size(v, &sz)) {
        *err = "expects a byte count such as 4096, 512K, 64M, 1.5G or 2GiB (a fraction must come to whole bytes)";
        return false;
      }
      break;
    case flag_kind::integer:
      if (!parse_int(v, &n) || n < 0) {
        *err = "expects a non-negative integer";
        return false;
      }
      break;
    case flag_kind::choice:
      if (!choice_allowed(f, v)) {
        *err = std::string("expects one of ") + (strchr(f.help, ':') + 2);
        return false;
      }
      break;
    case flag_kind::string: break;
  }
  int i = 0;
#define PROBE_SET_boolean(name) o.name = b;
#define PROBE_SET_string(name) o.name = intern(v);
#define PROBE_SET_size(name) o.name = sz;
#define PROBE_SET_integer(name) o.name = n;
#define PROBE_SET_choice(name) o.name = intern(v);
#define PROBE_SET_FIELD(kind, name, def, help) \
  if (i++ == index) {                          \
    PROBE_SET_##kind(name) return true;        \
  }
  PROBE_FLAG_LIST(PROBE_SET_FIELD)
#undef PROBE_SET_FIELD
  return false;
}

PROBE_API void parse_file(flag_state& st, const std::string& path, int depth, parse_result& r) {
  if (depth > 8) {
    flag_log("flags file '%s' nests too deeply (more than 8 files); ignored", path.c_str());
    ++r.bad;
    return;
  }
  // A file that includes itself, directly or through others: said once, read once.
  struct stat id;
  std::string key;
  if (::stat(path.c_str(), &id) == 0) {
    key = std::to_string(static_cast<unsigned long long>(id.st_dev)) + ":" +
          std::to_string(static_cast<unsigned long long>(id.st_ino));
    for (const std::string& k : st.reading)
      if (k == key) {
        flag_log("flags file '%s' includes itself (a cycle of flags files); the inclusion is ignored", path.c_str());
        ++r.bad;
        return;
      }
  }
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) {
    flag_log("cannot read flags file '%s': %s (a flag value that does not start with '-' is read "
        "as a file of flags)", path.c_str(), strerror(errno));
    ++r.bad;
    return;
  }
  // Flags, not data: anything bigger is a mistaken path (/dev/zero would never end).
  constexpr size_t k_max_flags_file = size_t{1} << 20;
  std::string text;
  char buf[4096];
  size_t n;
  while (text.size() <= k_max_flags_file && (n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const int read_errno = ferror(f) ? errno : 0;
  fclose(f);
  if (read_errno) {
    flag_log("cannot read flags file '%s': %s", path.c_str(), strerror(read_errno));
    ++r.bad;
    return;
  }
  if (text.size() > k_max_flags_file) {
    flag_log("flags file '%s' is larger than 1 MiB, so it is not a file of flags; ignored", path.c_str());
    ++r.bad;
    return;
  }
  // '#' starts a comment that runs to the end of the line.
  std::string clean;
  bool comment = false;
  for (char c : text) {
    if (c == '#') comment = true;
    if (c == '\n') comment = false;
    if (!comment) clean += c;
  }
  std::vector<std::string> toks;
  std::string err;
  if (!tokenize(clean.c_str(), toks, &err)) {
    flag_log("flags file '%s': %s", path.c_str(), err.c_str());
    ++r.bad;
    return;
  }
  st.reading.push_back(key);
  try {
    parse_tokens(st, toks, depth + 1, r);
  } catch (...) {
    st.reading.pop_back();
    throw;
  }
  st.reading.pop_back();
}

// The integer and size flags whose default (0) means "no limit": a value that cannot be read
// must not leave them at that default. String filters (steps, op regex) say so where they
// are compiled.
inline bool narrows_dump(int index) {
  static const int narrowing[] = {find_flag("dump_every"), find_flag("dump_max_bytes"), find_flag("dump_max_ops"),
                                  find_flag("dump_ir_min_ops")};
  for (int n : narrowing)
    if (n == index) return true;
  return false;
}

PROBE_API void parse_tokens(flag_state& st, const std::vector<std::string>& toks, int depth,
                             parse_result& r) {
  // Under --probe_strict_flags (anywhere in these tokens) a bad value stops the program: its
  // message says so rather than "keeping the default".
  bool strict = st.opts.strict_flags;
  for (const std::string& t : toks) {
    static const std::string k_strict = "--probe_strict_flags";
    if (t.compare(0, k_strict.size(), k_strict) != 0) continue;
    bool on = false;
    if (t.size() == k_strict.size() || (t[k_strict.size()] == '=' && parse_bool(t.substr(k_strict.size() + 1), &on) && on))
      strict = true;
  }
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& t = toks[i];
    if (t.empty()) continue;
    if (t[0] != '-') {
      parse_file(st, t, depth, r);
      continue;
    }
    std::string body = t.substr(t.size() > 1 && t[1] == '-' ? 2 : 1);
    std::string name = body, value;
    bool has_value = false;
    const size_t eq = body.find('=');
    if (eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    std::string bare = name.compare(0, 6, "probe_") == 0 ? name.substr(6) : std::string();
    int idx = bare.empty() ? -1 : find_flag(bare.c_str());
    bool negated = false;
    if (idx < 0 && bare.compare(0, 2, "no") == 0) {
      int j = find_flag(bare.c_str() + 2);
      if (j >= 0 && k_flags[j].kind == flag_kind::boolean && !has_value) {
        idx = j;
        negated = true;
      }
    }
    if (idx < 0) {
      const char* near = closest_flag(bare.empty() ? name.c_str() : bare.c_str());
      if (near)
        flag_log("unknown flag --%s (did you mean --probe_%s?)", name.c_str(), near);
      else
        flag_log("unknown flag --%s (--probe_help lists them all)", name.c_str());
      ++r.unknown;
      continue;
    }
    const flag_info& f = k_flags[idx];
    if (!has_value) {
      if (f.kind == flag_kind::boolean) {
        value = negated ? "false" : "true";
      } else if (i + 1 < toks.size() && toks[i + 1].compare(0, 2, "--") != 0) {
        value = toks[++i];
      } else {
        flag_log("flag --probe_%s needs a value (--probe_%s=VALUE)", f.name, f.name);
        ++r.bad;
        continue;
      }
    }
    std::string err;
    if (!set_flag(st.opts, idx, value, &err)) {
      // Filters and budgets narrow the dump: one that cannot be read (or a negative count)
      // selects nothing rather than falling back to "everything".
      if (narrows_dump(idx)) {
        st.opts.dump_narrowing_unread = true;
        flag_log("bad value '%s' for --probe_%s: %s; nothing is dumped (a dump is never wider than asked)",
                 value.c_str(), f.name, err.c_str());
      } else {
        if (strict)
          flag_log("bad value '%s' for --probe_%s: %s", value.c_str(), f.name, err.c_str());
        else
          flag_log("bad value '%s' for --probe_%s: %s; keeping the default (%s)", value.c_str(), f.name, err.c_str(),
                   f.default_text);
      }
      ++r.bad;
      continue;
    }
    st.given[idx] = true;
  }
}

}  // namespace detail
PROBE_END_NAMESPACE
