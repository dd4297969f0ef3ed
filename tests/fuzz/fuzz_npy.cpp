// .npy files: the prefix and header parsers on any bytes, then the same bytes as a file read
// whole by probe::npy::read and, as probe show and compare read them, block by block
// (header, printed values, health).
#include <probe/probe.hpp>

#include <string>

#include <probe/core/format_tensor.hpp>
#include <probe/formats/npy.hpp>

#include "analysis/npy_file.hpp"
#include "analysis/npy_values.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  probe::npy::header_info h;
  size_t text_offset = 0, text_len = 0;
  std::string why;
  if (probe::npy::parse_prefix(data, size, &h, &text_offset, &text_len, &why) && text_offset <= size) {
    const size_t n = text_len < size - text_offset ? text_len : size - text_offset;
    probe::npy::parse_header_text(reinterpret_cast<const char*>(data) + text_offset, n, &h, &why);
  }
  probe::npy::parse_header_text(reinterpret_cast<const char*>(data), size, &h, &why);  // the dict alone

  static const std::string path = probe_fuzz::scratch_dir() + "/x.npy";
  probe_fuzz::write_file(path, probe_fuzz::as_text(data, size));
  std::string error;
  probe::tensor t = probe::npy::read(path, &error);
  if (!t.empty()) (void)probe::compute_health(t.view());

  probe::analysis::npy_file f;
  if (f.open(path, &error)) {
    std::string text;
    probe::detail::tensor_format fmt;
    probe::analysis::format_npy_values(f, fmt, &text, &error);
    probe::health health;
    f.health_of_all(&health, &error);
  }
  return 0;
}
