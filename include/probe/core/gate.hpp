// The one branch every mark pays: a word of "is this effect on" bits, read relaxed.
//
// Before the flags are parsed the word is all ones, so the first mark of any kind takes the
// slow path, which parses the flags and stores the real bits. With every effect off the word
// is zero and a mark costs one load, one test and one not-taken branch.
#pragma once
#include "../util/config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

enum gate_bits : unsigned {
  gate_ops = 1u << 0,        // op scopes record (dump, timing, non-finite breaks, frames)
  gate_print = 1u << 1,      // probe::print
  gate_callback = 1u << 2,   // probe::callback
  gate_breakpoint = 1u << 3, // PROBE_BREAKPOINT and friends
  gate_timing = 1u << 4,     // PROBE_SCOPE, probe::timer, probe::metric's record
  gate_scopes = 1u << 5,     // PROBE_SCOPE keeps a per-thread chain (breakpoint frames)
  gate_ir = 1u << 6,         // probe::ir_module / ir_pass: the engine's IR into a dump folder
  gate_unparsed = ~0u,
};

#if defined(PROBE_DISABLE)
constexpr bool gate_on(unsigned) noexcept { return false; }
#else
inline unsigned g_gate = gate_unparsed;

// Parses the flags if needed; returns the current bits.
PROBE_API unsigned gate_slow() noexcept;

PROBE_ALWAYS_INLINE unsigned gate_load() noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return __atomic_load_n(&g_gate, __ATOMIC_RELAXED);
#else
  return *static_cast<volatile unsigned*>(&g_gate);
#endif
}

PROBE_ALWAYS_INLINE bool gate_on(unsigned bit) noexcept {
  const unsigned g = gate_load();
  if (PROBE_LIKELY((g & bit) == 0)) return false;
  if (PROBE_UNLIKELY(g == gate_unparsed)) return (gate_slow() & bit) != 0;
  return true;
}
#endif  // PROBE_DISABLE

}  // namespace detail
PROBE_END_NAMESPACE
