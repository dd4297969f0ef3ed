// .npy files (npy.hpp): definitions.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fs.hpp"
#include "../util/int_text.hpp"
#include "npy.hpp"

PROBE_BEGIN_NAMESPACE
namespace npy {
namespace detail {

inline bool native_little_endian() noexcept {
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return false;
#else
  return true;
#endif
}

// numpy's descr for a dtype in this machine's byte order, e.g. "'<f4'", quoted as it appears
// in the header ("" if none).
inline const char* descr_of(dtype t) noexcept {
  const bool le = native_little_endian();
  switch (t) {
    case dtype::boolean: return "'|b1'";
    case dtype::int8: return "'|i1'";
    case dtype::uint8: return "'|u1'";
    case dtype::int16: return le ? "'<i2'" : "'>i2'";
    case dtype::int32: return le ? "'<i4'" : "'>i4'";
    case dtype::int64: return le ? "'<i8'" : "'>i8'";
    case dtype::uint16: return le ? "'<u2'" : "'>u2'";
    case dtype::uint32: return le ? "'<u4'" : "'>u4'";
    case dtype::uint64: return le ? "'<u8'" : "'>u8'";
    case dtype::float16: return le ? "'<f2'" : "'>f2'";
    case dtype::float32: return le ? "'<f4'" : "'>f4'";
    case dtype::float64: return le ? "'<f8'" : "'>f8'";
    case dtype::complex64: return le ? "'<c8'" : "'>c8'";
    case dtype::complex128: return le ? "'<c16'" : "'>c16'";
    case dtype::bfloat16: return le ? "[('bfloat16', '<u2')]" : "[('bfloat16', '>u2')]";
    default: return "";
  }
}

// Maps a simple descr ("<f4", "|b1", ">c16", "=i8", "?") to a dtype and byte order.
inline bool dtype_of_descr(const char* d, dtype* t, bool* swap) noexcept {
  char order = '|';
  if (*d == '<' || *d == '>' || *d == '|' || *d == '=') order = *d++;
  struct entry {
    const char* code;
    dtype type;
  };
  static const entry table[] = {
      {"b1", dtype::boolean}, {"?", dtype::boolean},    {"i1", dtype::int8},
      {"i2", dtype::int16},   {"i4", dtype::int32},     {"i8", dtype::int64},
      {"u1", dtype::uint8},   {"u2", dtype::uint16},    {"u4", dtype::uint32},
      {"u8", dtype::uint64},  {"f2", dtype::float16},   {"f4", dtype::float32},
      {"f8", dtype::float64}, {"c8", dtype::complex64}, {"c16", dtype::complex128},
  };
  for (const entry& e : table) {
    if (strcmp(d, e.code) == 0) {
      *t = e.type;
      const bool little = native_little_endian();
      *swap = dtype_size(e.type) > 1 && ((order == '<' && !little) || (order == '>' && little));
      return true;
    }
  }
  return false;
}

// A cursor over the header text: just enough of Python's literal syntax for numpy headers
// (strings, integers, True/False/None, tuples, lists, dicts), with limits on string length
// and nesting. The first failure's message is kept.
class literal_parser {
 public:
  static constexpr size_t max_string = 255;

  literal_parser(const char* text, size_t n) noexcept : p_(text), end_(text + n) {}

  bool failed() const noexcept { return why_[0] != 0; }
  const char* why() const noexcept { return why_; }

  PROBE_PRINTF_LIKE(2, 3) bool fail(const char* fmt, ...) noexcept {
    if (!why_[0]) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(why_, sizeof why_, fmt, ap);
      va_end(ap);
    }
    return false;
  }

  void skip_space() noexcept {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  // Consumes c (after spaces) if it is next.
  PROBE_NOINLINE bool accept(char c) noexcept {
    skip_space();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool expect(char c, const char* where) noexcept {
    return accept(c) || fail("expected '%c' %s", c, where);
  }
  bool at(char c) noexcept {
    skip_space();
    return p_ < end_ && *p_ == c;
  }
  bool at_end() noexcept {
    skip_space();
    return p_ >= end_;
  }

  // A quoted string into out (max_string + 1 bytes).
  PROBE_NOINLINE bool string(char* out) noexcept {
    skip_space();
    if (p_ >= end_ || (*p_ != '\'' && *p_ != '"')) return fail("expected a quoted string");
    const char q = *p_++;
    size_t n = 0;
    while (p_ < end_ && *p_ != q) {
      if (*p_ == '\\' && p_ + 1 < end_) ++p_;
      if (n == max_string) return fail("string too long");
      out[n++] = *p_++;
    }
    out[n] = 0;
    if (p_ >= end_) return fail("unterminated string");
    ++p_;
    return true;
  }

  PROBE_NOINLINE bool integer(int64_t* out) noexcept {
    skip_space();
    bool negative = false;
    if (p_ < end_ && (*p_ == '-' || *p_ == '+')) negative = *p_++ == '-';
    if (p_ >= end_ || *p_ < '0' || *p_ > '9') return fail("expected an integer");
    uint64_t v = 0;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      const uint64_t digit = static_cast<uint64_t>(*p_++ - '0');
      if (v > (static_cast<uint64_t>(INT64_MAX) - digit) / 10) return fail("integer too large");
      v = v * 10 + digit;
    }
    if (p_ < end_ && (*p_ == 'L' || *p_ == 'l')) ++p_;  // Python 2 long
    *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
  }

  bool boolean(bool* out) noexcept {
    skip_space();
    const bool t = word("True");
    if (!t && !word("False")) return fail("expected True or False");
    *out = t;
    return true;
  }

  // Skips any value (for keys probe does not use).
  bool skip_value(int depth = 0) noexcept {
    if (depth > 16) return fail("nested too deeply");
    skip_space();
    if (p_ >= end_) return fail("unexpected end of header");
    const char c = *p_;
    if (c == '\'' || c == '"') {
      char s[max_string + 1];
      return string(s);
    }
    if (c == '(' || c == '[' || c == '{') {
      const char close = c == '(' ? ')' : c == '[' ? ']' : '}';
      ++p_;
      while (!accept(close)) {
        if (!skip_value(depth + 1)) return false;
        if (c == '{' && (!expect(':', "in a dict") || !skip_value(depth + 1))) return false;
        if (!accept(',') && !at(close)) return fail("expected ',' or '%c'", close);
      }
      return true;
    }
    if ((c >= '0' && c <= '9') || c == '-' || c == '+') {
      int64_t v;
      return integer(&v);
    }
    if (word("True") || word("False") || word("None")) return true;
    return fail("unexpected character '%c'", c >= 32 && c < 127 ? c : '?');
  }

 private:
  bool word(const char* w) noexcept {
    const size_t n = strlen(w);
    if (static_cast<size_t>(end_ - p_) >= n && memcmp(p_, w, n) == 0) {
      p_ += n;
      return true;
    }
    return false;
  }

  const char* p_;
  const char* end_;
  char why_[160] = {};
};

// descr: a simple type string, or the structured form probe uses for bfloat16.
inline PROBE_NOINLINE bool parse_descr(literal_parser& in, header_info* info) noexcept {
  char name[literal_parser::max_string + 1], code[literal_parser::max_string + 1];
  if (in.accept('[')) {
    if (!in.expect('(', "in a structured descr") || !in.string(name) ||
        !in.expect(',', "in a structured descr") || !in.string(code))
      return false;
    in.accept(',');
    if (!in.expect(')', "in a structured descr")) return false;
    in.accept(',');
    if (!in.at(']') || strcmp(name, "bfloat16") != 0)
      return in.fail("unsupported structured dtype (probe reads only [('bfloat16', '<u2')])");
    in.accept(']');
    dtype bits;
    if (!dtype_of_descr(code, &bits, &info->swap_bytes) || bits != dtype::uint16)
      return in.fail("bfloat16 field must be '<u2' or '>u2', not '%s'", code);
    info->type = dtype::bfloat16;
    return true;
  }
  if (!in.string(code)) return false;
  if (!dtype_of_descr(code, &info->type, &info->swap_bytes))
    return in.fail("unsupported dtype '%.32s' (probe reads bool, int8-64, uint8-64, "
                   "float16/32/64, complex64/128, bfloat16)", code);
  return true;
}

inline PROBE_NOINLINE bool parse_shape(literal_parser& in, header_info* info) noexcept {
  if (!in.expect('(', "to open the shape")) return false;
  info->ndim = 0;
  while (!in.accept(')')) {
    int64_t v = 0;
    if (!in.integer(&v)) return false;
    if (v < 0) return in.fail("negative dimension %lld in shape", static_cast<long long>(v));
    if (info->ndim == max_dims) return in.fail("more than %d dimensions", max_dims);
    info->shape[info->ndim++] = v;
    if (!in.accept(',') && !in.at(')')) return in.fail("expected ',' or ')' in shape");
  }
  return true;
}

inline PROBE_PRINTF_LIKE(2, 3) bool set_why(std::string* why, const char* fmt, ...) noexcept {
  if (!why) return false;
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  try {
    why->assign(buf);
  } catch (...) {
  }
  return false;
}

}  // namespace detail

// Parses the dict text of a header into info (type, order, shape, data_bytes). `why` gets
// what is wrong when it returns false.
PROBE_API bool parse_header_text(const char* text, size_t n, header_info* info, std::string* why) noexcept {
  detail::literal_parser in(text, n);
  bool have_descr = false, have_order = false, have_shape = false;
  if (in.expect('{', "at the start of the header")) {
    while (!in.accept('}')) {
      char key[detail::literal_parser::max_string + 1];
      if (!in.string(key) || !in.expect(':', "after a key")) break;
      bool ok;
      if (strcmp(key, "descr") == 0) {
        ok = have_descr = detail::parse_descr(in, info);
      } else if (strcmp(key, "fortran_order") == 0) {
        ok = have_order = in.boolean(&info->fortran_order);
      } else if (strcmp(key, "shape") == 0) {
        ok = have_shape = detail::parse_shape(in, info);
      } else {
        ok = in.skip_value();
      }
      if (!ok) break;
      if (!in.accept(',') && !in.at('}')) {
        in.fail("expected ',' or '}' in the header dict");
        break;
      }
    }
  }
  if (!in.failed() && !in.at_end()) in.fail("unexpected text after the header dict");
  if (!in.failed() && !have_descr) in.fail("header has no 'descr'");
  if (!in.failed() && !have_order) in.fail("header has no 'fortran_order'");
  if (!in.failed() && !have_shape) in.fail("header has no 'shape'");
  if (in.failed()) return detail::set_why(why, "bad header: %s", in.why());
  // Size of the data. As numpy does, the product of the non-zero dimensions times the item size
  // must fit: a zero dimension makes the array empty, not any shape acceptable ((2^62, 2^62, 0)
  // would overflow every reader that multiplies the shape out).
  uint64_t nonzero = dtype_size(info->type);
  bool empty = false;
  for (int i = 0; i < info->ndim; ++i) {
    if (info->shape[i] == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow(nonzero, static_cast<uint64_t>(info->shape[i]), &nonzero) ||
        nonzero > static_cast<uint64_t>(INT64_MAX))
      return detail::set_why(why, "bad header: shape too large");
  }
  info->data_bytes = empty ? 0 : static_cast<size_t>(nonzero);
  return true;
}

// Parses the fixed prefix (magic, version, header length) from the first bytes of a file.
// On success sets major/minor, *text_offset (where the dict text starts) and *text_len.
PROBE_API bool parse_prefix(const unsigned char* p, size_t n, header_info* info, size_t* text_offset,
                         size_t* text_len, std::string* why) noexcept {
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (n < 10 || memcmp(p, magic, 6) != 0) {
    const bool partial = n > 0 && memcmp(p, magic, n < 6 ? n : 6) == 0;
    return detail::set_why(why, partial ? "truncated: file ends inside the header"
                                        : "not an .npy file (no \\x93NUMPY magic)");
  }
  info->major = p[6];
  info->minor = p[7];
  if (info->major == 1) {
    *text_offset = 10;
    *text_len = static_cast<size_t>(p[8]) | static_cast<size_t>(p[9]) << 8;
  } else if (info->major == 2 || info->major == 3) {
    if (n < 12) return detail::set_why(why, "truncated: file ends inside the header");
    *text_offset = 12;
    *text_len = static_cast<size_t>(p[8]) | static_cast<size_t>(p[9]) << 8 |
                static_cast<size_t>(p[10]) << 16 | static_cast<size_t>(p[11]) << 24;
  } else {
    return detail::set_why(why, "unsupported .npy version %d.%d", info->major, info->minor);
  }
  if (*text_len > max_header_bytes)
    return detail::set_why(why, "header length %zu exceeds the %zu-byte limit", *text_len,
                           max_header_bytes);
  return true;
}

// The complete header (magic through the final '\n') for a C-order array: version 1.0 (the
// text of at most 8 dimensions never needs version 2.0's 32-bit length), padded so that the
// data starts at a multiple of 64 bytes. Empty when the dtype or the number of dimensions is
// invalid.
PROBE_API std::string header(dtype t, const int64_t* shape, int ndim) noexcept {
  const char* descr = detail::descr_of(t);
  if (!*descr || ndim < 0 || ndim > max_dims) return std::string();
  // 12-byte prefix room, then the dict text (at most ~300 bytes with 8 dims), then padding.
  char buf[512];
  char* text = buf + 12;
  char* end = probe::detail::put_text(text, "{'descr': ");
  end = probe::detail::put_text(end, descr);
  end = probe::detail::put_text(end, ", 'fortran_order': False, 'shape': (");
  for (int i = 0; i < ndim; ++i) {
    if (i) end = probe::detail::put_text(end, ", ");
    end = probe::detail::put_int(end, static_cast<long long>(shape[i]));
  }
  end = probe::detail::put_text(end, ndim == 1 ? ",), }" : "), }");
  const size_t dict = static_cast<size_t>(end - text);
  const size_t prefix = 10;
  const size_t total = (prefix + dict + 1 + 63) / 64 * 64;
  const size_t text_len = total - prefix;
  char* out = text - prefix;
  memcpy(out, "\x93NUMPY\x01\x00", 8);
  out[8] = static_cast<char>(text_len & 0xff);
  out[9] = static_cast<char>(text_len >> 8);
  memset(text + dict, ' ', text_len - dict - 1);
  text[text_len - 1] = '\n';
  try {
    return std::string(out, total);
  } catch (...) {
    return std::string();
  }
}

PROBE_API std::string header_for(const tensor_view& v) noexcept {
  return v.valid() ? header(v.type, v.shape, v.ndim) : std::string();
}


namespace detail {

// Sets *error (when given) from a format; always returns false.
inline PROBE_PRINTF_LIKE(2, 3) bool fail(std::string* error, const char* fmt, ...) noexcept {
  if (!error) return false;
  char buf[4096 + 512];  // room for a full path and the reason
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  try {
    error->assign(buf);
  } catch (...) {
  }
  return false;
}

// Gathers a strided host view in row-major order through a bounded buffer.
inline int write_strided(int fd, const tensor_view& v) noexcept {
  const size_t item = v.itemsize();
  const int last = v.ndim - 1;
  const bool inner_dense = v.strides[last] == 1;
  const int64_t run = inner_dense ? v.shape[last] : 1;
  const int outer = inner_dense ? last : v.ndim;
  const size_t run_bytes = static_cast<size_t>(run) * item;
  const size_t cap = run_bytes > (size_t{4} << 20) ? run_bytes : (size_t{4} << 20);
  char* buf = static_cast<char*>(malloc(cap));
  if (!buf) return ENOMEM;
  size_t fill = 0;
  int err = 0;
  int64_t idx[max_dims] = {};
  const char* base = static_cast<const char*>(v.data);
  const int64_t n = v.numel();
  for (int64_t done = 0; !err && done < n; done += run) {
    int64_t off = 0;
    for (int d = 0; d < outer; ++d) off += idx[d] * v.strides[d];
    if (fill + run_bytes > cap) {
      err = ::probe::detail::write_all(fd, buf, fill);
      fill = 0;
    }
    memcpy(buf + fill, base + off * static_cast<int64_t>(item), run_bytes);
    fill += run_bytes;
    for (int d = outer - 1; d >= 0; --d) {
      if (++idx[d] < v.shape[d]) break;
      idx[d] = 0;
    }
  }
  if (!err) err = ::probe::detail::write_all(fd, buf, fill);
  free(buf);
  return err;
}

// Why a view cannot be written ("" if it can).
inline const char* unwritable(const tensor_view& v) noexcept {
  if (v.ndim < 0 && v.problem == view_problem::too_many_dims) return "invalid view: more than 8 dimensions";
  if (v.ndim < 0 && v.problem == view_problem::strides_count) return "invalid view: strides do not match the shape";
  if (v.ndim < 0) return "invalid view: a bad batch_view (its sample view or count)";
  if (v.batch) return "a batch_view: read it into one tensor first (probe::detail::read_tensor)";
  if (v.type == dtype::invalid) return "invalid view (no dtype)";
  if (!v.where.is_host()) return "device memory: copy the tensor to the host first";
  for (int i = 0; i < v.ndim; ++i)
    if (v.shape[i] < 0) return "negative dimension in the view's shape";
  if (v.numel() > 0 && !v.data) return "null data pointer";
  return "";
}

inline void swap_bytes(char* p, size_t count, size_t width) noexcept {
  for (size_t i = 0; i < count; ++i, p += width)
    for (size_t a = 0, b = width - 1; a < b; ++a, --b) {
      const char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

// Reads up to n bytes (fewer only at end of file); false with errno set on an error.
inline bool read_all(int fd, void* data, size_t n, size_t* got) noexcept {
  char* p = static_cast<char*>(data);
  *got = 0;
  while (*got < n) {
    const size_t want = n - *got < (size_t{1} << 30) ? n - *got : (size_t{1} << 30);
    const ssize_t r = ::read(fd, p + *got, want);
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (r == 0) return true;
    *got += static_cast<size_t>(r);
  }
  return true;
}

class fd_guard {
 public:
  explicit fd_guard(int fd) noexcept : fd_(fd) {}
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;

 private:
  int fd_;
};

// Opens path and reads and checks its header, sizes included; *fd_out is open on success
// and may be open on failure (the caller closes it).
inline bool open_and_parse(const char* path, int* fd_out, header_info* info, std::string* error) noexcept {
  // Non-blocking, so a FIFO named like a data file fails the regular-file check below
  // instead of waiting in open() for a writer; cleared again before reading.
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return fail(error, "%s: cannot open: %s", path, strerror(errno));
  *fd_out = fd;
  struct stat st;
  if (fstat(fd, &st) != 0) return fail(error, "%s: cannot stat: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail(error, "%s: not a regular file", path);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const size_t size = static_cast<size_t>(st.st_size);
  unsigned char prefix[12] = {};
  size_t got = 0;
  if (!read_all(fd, prefix, sizeof prefix, &got)) return fail(error, "%s: read error: %s", path, strerror(errno));
  if (got == 0) return fail(error, "%s: empty file, not an .npy file", path);
  size_t text_offset = 0, text_len = 0;
  std::string why;
  if (!parse_prefix(prefix, got, info, &text_offset, &text_len, &why))
    return fail(error, "%s: %s", path, why.c_str());
  if (text_len > size - text_offset)
    return fail(error, "%s: truncated: header length %zu runs past the end of the %zu-byte file", path,
                text_len, size);
  char* text = static_cast<char*>(malloc(text_len ? text_len : 1));  // <= max_header_bytes
  if (!text) return fail(error, "%s: out of memory", path);
  const bool read_ok = lseek(fd, static_cast<off_t>(text_offset), SEEK_SET) >= 0 &&
                       read_all(fd, text, text_len, &got) && got == text_len;
  const bool parsed = read_ok && parse_header_text(text, text_len, info, &why);
  free(text);
  if (!read_ok) return fail(error, "%s: read error in the header", path);
  if (!parsed) return fail(error, "%s: %s", path, why.c_str());
  info->data_offset = text_offset + text_len;
  if (info->data_bytes > size - info->data_offset)
    return fail(error, "%s: truncated: the header promises %zu bytes of %s data, the file holds %zu", path,
                info->data_bytes, dtype_name(info->type), size - info->data_offset);
  return true;
}

}  // namespace detail

// Writes a complete .npy (header, then the data in C order) at fd's current position. For
// dump engines that manage their own files. The view must be on the host.
PROBE_API bool write_fd(int fd, const tensor_view& v, std::string* error) noexcept {
  const char* bad = detail::unwritable(v);
  if (*bad) return detail::fail(error, "%s", bad);
  const std::string head = header_for(v);
  if (head.empty()) return detail::fail(error, "cannot build a header for this view");
  int err;
  if (v.ndim == 0 || v.is_contiguous()) {
    err = ::probe::detail::write_all2(fd, head.data(), head.size(), v.data, v.nbytes());
  } else {
    err = ::probe::detail::write_all(fd, head.data(), head.size());
    if (!err) err = detail::write_strided(fd, v);
  }
  return !err || detail::fail(error, "write failed: %s", strerror(err));
}

PROBE_API bool write(const char* path, const tensor_view& v, std::string* error) noexcept {
  const char* bad = detail::unwritable(v);
  if (*bad) return detail::fail(error, "%s: %s", path, bad);
  ::probe::detail::atomic_file f;
  if (const int e = f.open(path)) return detail::fail(error, "%s: cannot create a file in its directory: %s", path, strerror(e));
  std::string why;
  if (!write_fd(f.fd(), v, &why)) return detail::fail(error, "%s: %s", path, why.c_str());
  if (const int e = f.commit()) return detail::fail(error, "%s: %s", path, strerror(e));
  return true;
}
PROBE_API bool write(const std::string& path, const tensor_view& v, std::string* error) noexcept {
  return write(path.c_str(), v, error);
}

// Reads only the header (type, shape, order, where the data starts).
PROBE_API bool read_header(const char* path, header_info* info, std::string* error) noexcept {
  int fd = -1;
  header_info h;
  const bool ok = detail::open_and_parse(path, &fd, &h, error);
  detail::fd_guard guard(fd);
  if (ok && info) *info = h;
  return ok;
}
PROBE_API bool read_header(const std::string& path, header_info* info, std::string* error) noexcept {
  return read_header(path.c_str(), info, error);
}

// Reads a whole .npy into an owning, C-ordered tensor in native byte order. On error the
// tensor is empty() and *error says what is wrong.
PROBE_API tensor read(const char* path, std::string* error) noexcept {
  int fd = -1;
  header_info h;
  const bool ok = detail::open_and_parse(path, &fd, &h, error);
  detail::fd_guard guard(fd);
  if (!ok) return tensor();
  try {
    const dims shape(h.shape, static_cast<size_t>(h.ndim));
    tensor out(h.type, shape);
    if (h.data_bytes == 0) return out;
    // Fortran order needs the column-major bytes somewhere before transposing.
    const bool transpose = h.fortran_order && h.ndim > 1;
    tensor raw = transpose ? tensor(h.type, dims{h.numel()}) : tensor();
    char* dst = static_cast<char*>(transpose ? raw.data() : out.data());
    size_t got = 0;
    if (lseek(fd, static_cast<off_t>(h.data_offset), SEEK_SET) < 0 || !detail::read_all(fd, dst, h.data_bytes, &got)) {
      detail::fail(error, "%s: read error: %s", path, strerror(errno));
      return tensor();
    }
    if (got != h.data_bytes) {
      detail::fail(error, "%s: truncated while reading the data", path);
      return tensor();
    }
    if (h.swap_bytes) {
      const size_t width = dtype_is_complex(h.type) ? dtype_size(h.type) / 2 : dtype_size(h.type);
      detail::swap_bytes(dst, h.data_bytes / width, width);
    }
    if (transpose) {
      int64_t strides[max_dims];
      int64_t s = 1;
      for (int i = 0; i < h.ndim; ++i) {
        strides[i] = s;
        s *= h.shape[i];
      }
      const tensor_view column_major =
          view_raw(raw.data(), h.type, shape, dims(strides, static_cast<size_t>(h.ndim)));
      ::probe::detail::copy_contiguous(column_major, out.data());
    }
    return out;
  } catch (...) {  // allocation of the tensor
    detail::fail(error, "%s: out of memory for %zu bytes of data", path, h.data_bytes);
    return tensor();
  }
}
PROBE_API tensor read(const std::string& path, std::string* error) noexcept {
  return read(path.c_str(), error);
}


}  // namespace npy
PROBE_END_NAMESPACE
