// Files of a dump run that are not an op's (the engine's IR, ir_dump_impl.hpp): written into
// the run folder beside the op dumps, with their manifest lines. Part of the dump module.
#pragma once
#include "dump_impl.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Writes `name` whole into the run folder (opening the run when no op did yet), then its
// manifest line. An empty name writes the line only.
inline bool dump_effect::write_run_file(const std::string& name, const std::string& body, const std::string& line) noexcept {
  if (!active()) return false;
  try {
    lock_guard<mutex> g(m_);
    if (!active() || !usable_locked() || cfg_->to_stdout || !dir_fd_ || dir_fd_->fd < 0) return false;
    if (!name.empty())
      if (int e = write_file_atomic_at(dir_fd_->fd, name.c_str(), body.data(), body.size())) {
        fail_locked(e, join_path(dir_.path, name));
        return false;
      }
    write_line_locked(line);
    return !failed();
  } catch (...) {
    return false;
  }
}

PROBE_API bool dump_write_run_file(const std::string& name, const std::string& body, const std::string& line) noexcept {
  return dump_instance().write_run_file(name, body, line);
}
PROBE_API bool dump_active() noexcept { return dump_instance().active(); }

}  // namespace detail
PROBE_END_NAMESPACE
