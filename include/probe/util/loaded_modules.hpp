// Which addresses lie in a loaded module: pointers probe keeps into a library's static data
// (a scope's site) outlive the library once the program dlclose()s it. Internal header.
#pragma once
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class loaded_modules {
 public:
  // Reads the loader's counts of loads and unloads; the segments again only when they
  // changed after an unload. Nothing is read per address while no module was ever unloaded.
  void refresh() noexcept {
    counts c;
    dl_iterate_phdr(read_counts, &c);
    if (c.adds == adds_ && c.subs == subs_) return;
    adds_ = c.adds;
    subs_ = c.subs;
    if (subs_ == 0) return;
    try {
      ranges_.clear();
      dl_iterate_phdr(read_segments, &ranges_);
      std::sort(ranges_.begin(), ranges_.end());
    } catch (...) {
      ranges_.clear();
    }
  }

  bool any_unloaded() const noexcept { return subs_ != 0; }

  // Whether p lies in a segment of a loaded module (after refresh(); only asked once some
  // module was unloaded).
  bool contains(const void* p) const noexcept {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), std::make_pair(a, UINTPTR_MAX));
    return it != ranges_.begin() && a < std::prev(it)->second;
  }

 private:
  struct counts {
    unsigned long long adds = 0, subs = 0;
  };
  static int read_counts(dl_phdr_info* info, size_t size, void* data) {
    if (size < offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) return 1;
    auto* c = static_cast<counts*>(data);
    c->adds = info->dlpi_adds;
    c->subs = info->dlpi_subs;
    return 1;  // the counts are the same in every entry: one is enough
  }
  static int read_segments(dl_phdr_info* info, size_t, void* data) {
    auto* out = static_cast<std::vector<std::pair<uintptr_t, uintptr_t>>*>(data);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
      const ElfW(Phdr)& ph = info->dlpi_phdr[i];
      if (ph.p_type != PT_LOAD) continue;
      const uintptr_t lo = static_cast<uintptr_t>(info->dlpi_addr + ph.p_vaddr);
      out->emplace_back(lo, lo + ph.p_memsz);
    }
    return 0;
  }

  unsigned long long adds_ = 0, subs_ = 0;
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges_;  // [begin, end) of each loaded segment, sorted
};

}  // namespace detail
PROBE_END_NAMESPACE
