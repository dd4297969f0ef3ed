// What the harnesses share: the fuzzer's bytes as text, split into parts, and a scratch
// folder for harnesses whose parser reads files.
#pragma once
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <string_view>

namespace probe_fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// Splits at the first `sep`: returns the part before it, and sets *rest to the part after;
// all of it and an empty rest when there is none.
inline std::string_view split_first(std::string_view text, char sep, std::string_view* rest) {
  const size_t at = text.find(sep);
  if (at == std::string_view::npos) {
    *rest = std::string_view();
    return text;
  }
  *rest = text.substr(at + 1);
  return text.substr(0, at);
}

namespace detail {
inline std::string& scratch_path() {
  static std::string path;
  return path;
}
inline int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }
inline void remove_scratch() { nftw(scratch_path().c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS); }
}  // namespace detail

// A private folder for the whole run, removed at exit.
inline const std::string& scratch_dir() {
  std::string& dir = detail::scratch_path();
  if (dir.empty()) {
    const char* base = getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/probe_fuzz.XXXXXX";
    if (!mkdtemp(&tmpl[0])) abort();
    dir = tmpl;
    atexit(detail::remove_scratch);
  }
  return dir;
}

// Writes `content` to path, replacing it. Failing to is no finding: it aborts.
inline void write_file(const std::string& path, std::string_view content) {
  FILE* f = fopen(path.c_str(), "wb");
  if (!f || fwrite(content.data(), 1, content.size(), f) != content.size() || fclose(f) != 0) abort();
}

}  // namespace probe_fuzz
