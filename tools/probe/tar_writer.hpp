// Writing a POSIX ustar archive (what `tar -x` unpacks everywhere): 512-byte headers, the
// data padded to 512 bytes, two zero blocks at the end. Names are split into ustar's
// prefix (155 bytes) and name (100 bytes) at a '/'; a longer name also gets a POSIX.1-2001
// extended header (a "path" record) before its entry. A name that is absolute or climbs with
// ".." is refused, so an archive never writes outside the folder it is unpacked in. The
// archive is written under a temporary name and renamed when complete.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

namespace probe_cli {

class tar_writer {
 public:
  tar_writer() = default;
  tar_writer(const tar_writer&) = delete;
  tar_writer& operator=(const tar_writer&) = delete;
  ~tar_writer() {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(tmp_.c_str());
    }
  }

  bool open(const std::string& path, std::string* error) {
    path_ = path;
    tmp_ = path + ".tmp." + std::to_string(getpid());
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) return fail("cannot write " + path + ": " + strerror(errno), error);
    mtime_ = static_cast<long long>(time(nullptr));
    return true;
  }

  bool add_dir(const std::string& name, std::string* error) { return header(name + "/", 0, '5', 0755, error); }

  bool add_file(const std::string& name, const std::string& data, std::string* error) {
    return header(name, data.size(), '0', 0644, error) && write(data.data(), data.size(), error) &&
           pad(data.size(), error);
  }

  // Copies `size` bytes from fd (a regular file the caller opened).
  bool add_file_from(const std::string& name, int fd, size_t size, std::string* error) {
    if (!header(name, size, '0', 0644, error)) return false;
    std::vector<char> buf(size_t{1} << 20);
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::read(fd, buf.data(), std::min(buf.size(), size - done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return fail(name + ": " + (n < 0 ? strerror(errno) : "the file shrank while being read"), error);
      if (!write(buf.data(), static_cast<size_t>(n), error)) return false;
      done += static_cast<size_t>(n);
    }
    return pad(size, error);
  }

  // Ends the archive and moves it into place.
  bool finish(std::string* error) {
    const std::string zeros(1024, '\0');
    if (!write(zeros.data(), zeros.size(), error)) return false;
    if (::close(fd_) != 0) {
      fd_ = -1;
      ::unlink(tmp_.c_str());
      return fail("cannot write " + path_ + ": " + strerror(errno), error);
    }
    fd_ = -1;
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
      ::unlink(tmp_.c_str());
      return fail("cannot write " + path_ + ": " + strerror(errno), error);
    }
    return true;
  }

  // A name that stays inside the folder the archive is unpacked in.
  static bool name_safe(const std::string& name) {
    if (name.empty() || name[0] == '/' || name.find('\0') != std::string::npos) return false;
    for (size_t at = 0; at <= name.size();) {  // no ".." component
      size_t end = name.find('/', at);
      if (end == std::string::npos) end = name.size();
      if (end - at == 2 && name.compare(at, 2, "..") == 0) return false;
      at = end + 1;
    }
    return true;
  }

  // Whether ustar's two name fields can hold `name`, and how it splits between them.
  static bool name_fits(const std::string& name, std::string* prefix, std::string* rest) {
    if (name.size() <= 100) {
      prefix->clear();
      *rest = name;
      return true;
    }
    for (size_t cut = name.size() > 101 ? name.size() - 101 : 0; cut < name.size() && cut <= 155; ++cut)
      if (name[cut] == '/' && name.size() - cut - 1 <= 100 && cut > 0) {
        *prefix = name.substr(0, cut);
        *rest = name.substr(cut + 1);
        return true;
      }
    return false;
  }

 private:
  static bool fail(const std::string& what, std::string* error) {
    *error = what;
    return false;
  }

  bool write(const void* p, size_t n, std::string* error) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
      const ssize_t w = ::write(fd_, c, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return fail("cannot write " + path_ + ": " + strerror(w < 0 ? errno : EIO), error);
      c += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }

  bool pad(size_t size, std::string* error) {
    const size_t extra = (512 - size % 512) % 512;
    const std::string zeros(extra, '\0');
    return write(zeros.data(), zeros.size(), error);
  }

  // width - 1 octal digits, zero-padded, then a NUL (the caller checked that v fits).
  static void octal(char* field, size_t width, unsigned long long v) {
    field[width - 1] = '\0';
    for (size_t i = width - 1; i-- > 0; v >>= 3) field[i] = static_cast<char>('0' + (v & 7));
  }

  // A pax "path" record: "<length> path=<name>\n", the length counting its own digits.
  static std::string path_record(const std::string& name) {
    const std::string body = " path=" + name + "\n";
    size_t n = body.size() + 1;
    while (std::to_string(n).size() + body.size() != n) n = std::to_string(n).size() + body.size();
    return std::to_string(n) + body;
  }

  bool header(const std::string& name, size_t size, char type, unsigned mode, std::string* error) {
    if (!name_safe(name)) return fail("'" + name + "' would leave the archive's folder", error);
    if (size > 077777777777ull) return fail(name + ": larger than 8 GiB, which ustar cannot hold", error);
    std::string prefix, rest;
    if (!name_fits(name, &prefix, &rest)) {
      // The long name in an extended header; the ustar fields keep a shortened one.
      const std::string record = path_record(name);
      if (!raw_header("PaxHeader", "", record.size(), 'x', 0644, error) || !write(record.data(), record.size(), error) ||
          !pad(record.size(), error))
        return false;
      const size_t cut = name.rfind('/', name.size() - 2);
      prefix = cut == std::string::npos ? "" : name.substr(0, std::min<size_t>(cut, 155));
      rest = (cut == std::string::npos ? name : name.substr(cut + 1)).substr(0, 99);
      if (type == '5' && rest.back() != '/') rest += '/';
    }
    return raw_header(rest, prefix, size, type, mode, error);
  }

  bool raw_header(const std::string& rest, const std::string& prefix, size_t size, char type, unsigned mode,
                  std::string* error) {
    char h[512];
    memset(h, 0, sizeof h);
    memcpy(h, rest.data(), rest.size());
    octal(h + 100, 8, mode);
    octal(h + 108, 8, 0);  // uid
    octal(h + 116, 8, 0);  // gid
    octal(h + 124, 12, size);
    octal(h + 136, 12, static_cast<unsigned long long>(mtime_));
    memset(h + 148, ' ', 8);  // the checksum counts its own field as spaces
    h[156] = type;
    memcpy(h + 257, "ustar", 6);  // magic with its NUL
    memcpy(h + 263, "00", 2);
    memcpy(h + 265, "probe", 5);
    memcpy(h + 297, "probe", 5);
    memcpy(h + 345, prefix.data(), prefix.size());
    unsigned sum = 0;
    for (unsigned char c : h) sum += c;
    octal(h + 148, 7, sum);  // six digits and a NUL, then the space already there
    h[155] = ' ';
    return write(h, sizeof h, error);
  }

  std::string path_, tmp_;
  int fd_ = -1;
  long long mtime_ = 0;
};

}  // namespace probe_cli
