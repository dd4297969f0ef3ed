// Names on disk for dumped tensors: an allow-list sanitizer with a length cap, the
// sortable file names of the dump layout, and where a run's files go (rank folders, a
// private folder when another live process owns the directory). Internal header.
#pragma once
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <string>

#include "../util/fs.hpp"
#include "../util/int_text.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// FNV-1a: a short, stable tag that keeps truncated names distinct.
inline uint32_t name_hash(const std::string& s) noexcept {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

// Every byte outside [A-Za-z0-9._-] becomes '_' (so no '/', NUL or "..": the name can never
// leave its directory); names longer than `cap` bytes keep a prefix plus a hash of the whole.
PROBE_API std::string sanitize_name(const std::string& raw, size_t cap);

// Caps so that the longest file name stays under NAME_MAX (255 bytes):
// "op_" + seq + "." + op + "." + io + "." + slot + ".npy".
constexpr size_t k_op_name_cap = 120;
constexpr size_t k_slot_name_cap = 96;

PROBE_API std::string op_file_stem(uint64_t seq, const std::string& op);

// "op_000012.conv1.out.y.npy"
PROBE_API std::string tensor_file_name(uint64_t seq, const std::string& op, bool is_input,
                                        const std::string& slot, const char* ext);

// The rank of this process and the world size, from the launchers' environment
// (Open MPI, MPICH/PMI, Slurm, torchrun). world 0 when no launcher is seen.
struct rank_info {
  int rank = -1;
  int world = 0;
};
PROBE_API rank_info detect_rank() noexcept;

// A directory this process owns for the run: `base`, or base/rank_NNNN with several ranks,
// or a private base/<host>_<pid> when another live process already dumps into it. Ownership
// is an flock on ".probe.lock", released by the kernel when the process dies.
// The folder given is followed if it is a symbolic link (the user named it); the folders probe
// makes inside it (rank_NNNN, <host>_<pid>) are opened relative to it and never through a
// link planted under their name. A forked child (`own` true) always takes a private folder.
struct run_dir {
  std::string path;
  int fd = -1;       // the run directory, open: every file of the run is made relative to it
  int lock_fd = -1;
  std::string note;  // why the path differs from what was asked, if it does
};

PROBE_API int lock_dir(int dirfd, int* fd_out) noexcept;

// Returns 0 or an errno value (with the failing path, and why, in *where).
PROBE_API int open_run_dir(const std::string& base, run_dir* out, std::string* where, bool own = false);

}  // namespace detail
PROBE_END_NAMESPACE
