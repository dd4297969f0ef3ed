/* probe.h, part 3: replay kernels written in C. Included by <probe/probe.h>; include that.
 * docs/c.md, "Replay".
 *
 *   static void norm_kernel(probe_replay* r) {
 *     int64_t shape[PROBE_MAX_DIMS];
 *     int ndim;
 *     const float* x = probe_replay_input(r, "x", PROBE_FLOAT32, &ndim, shape);
 *     float* y = probe_replay_output(r, "y", PROBE_FLOAT32, ndim, shape);
 *     double eps = probe_replay_attr_double(r, "eps");
 *     if (probe_replay_failed(r)) return;            // probe reports why, the replay exits 2
 *     layer_norm(x, y, shape[0], shape[1], eps);
 *   }
 *   ...
 *   probe_register_kernel("LayerNorm", norm_kernel, NULL);   // before probe_init
 *
 * A request that cannot be met (no such slot, another dtype, a missing attribute) returns
 * NULL or 0 and marks the replay failed; the kernel returns, and the replay reports the first
 * failure as one line and exits 2. */
#ifndef PROBE_C_REPLAY_H
#define PROBE_C_REPLAY_H
#ifndef PROBE_PROBE_H
#error "include <probe/probe.h>, not probe/c/replay.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct probe_replay probe_replay; /* opaque: one replayed op execution */
typedef void (*probe_kernel_fn)(probe_replay* replay);

#if !defined(PROBE_DISABLE)

/* Registers `fn` as the kernel of ops whose name or type is `name` (the name is matched
 * first); `reference` (or NULL) runs instead under --probe_reference. The name is copied; a
 * later registration of a name replaces an earlier one. Call before probe_init. */
void probe_register_kernel(const char* name, probe_kernel_fn fn, probe_kernel_fn reference) PROBE_C_NOEXCEPT;

/* Input `slot`, recorded as `type` (else a failure); NULL on failure. ndim and shape (room
 * for PROBE_MAX_DIMS), when not NULL, receive its shape. */
const void* probe_replay_input(probe_replay* replay, const char* slot, probe_dtype type, int* ndim, int64_t* shape) PROBE_C_NOEXCEPT;
/* Output `slot`, allocated by probe: with the recorded shape when ndim < 0, else with `shape`
 * (which must match the recorded one, when there is one); zeros, or the recorded prior state
 * of an output that is also an input (inout, implicit read-modify-write). NULL on failure. */
void* probe_replay_output(probe_replay* replay, const char* slot, probe_dtype type, int ndim, const int64_t* shape) PROBE_C_NOEXCEPT;
/* Attribute `name` (probe_op_attr_*): absent, or of another kind, is a failure (0, "" or
 * NULL), except that _int reads a boolean (0, 1) and _double an integer.
 * probe_replay_has_attr tells first when it is optional. */
int64_t probe_replay_attr_int(probe_replay* replay, const char* name) PROBE_C_NOEXCEPT;
double probe_replay_attr_double(probe_replay* replay, const char* name) PROBE_C_NOEXCEPT;
const char* probe_replay_attr_string(probe_replay* replay, const char* name) PROBE_C_NOEXCEPT;
const int64_t* probe_replay_attr_ints(probe_replay* replay, const char* name, size_t* count) PROBE_C_NOEXCEPT;
int probe_replay_has_attr(const probe_replay* replay, const char* name) PROBE_C_NOEXCEPT;
int probe_replay_has_input(const probe_replay* replay, const char* slot) PROBE_C_NOEXCEPT;
int probe_replay_has_output(const probe_replay* replay, const char* slot) PROBE_C_NOEXCEPT;
const char* probe_replay_op_name(const probe_replay* replay) PROBE_C_NOEXCEPT;
const char* probe_replay_op_type(const probe_replay* replay) PROBE_C_NOEXCEPT;
/* The kernel's own failure: one line the replay reports (the first failure wins). */
void probe_replay_fail(probe_replay* replay, const char* why) PROBE_C_NOEXCEPT;
/* 1 once a request failed: the kernel should return. */
int probe_replay_failed(const probe_replay* replay) PROBE_C_NOEXCEPT;

#else /* PROBE_DISABLE: nothing registered, nothing replayed */

static inline void probe_register_kernel(const char* name, probe_kernel_fn fn, probe_kernel_fn reference) {
  (void)name, (void)fn, (void)reference;
}
static inline const void* probe_replay_input(probe_replay* replay, const char* slot, probe_dtype type, int* ndim,
                                             int64_t* shape) {
  (void)replay, (void)slot, (void)type, (void)ndim, (void)shape;
  return NULL;
}
static inline void* probe_replay_output(probe_replay* replay, const char* slot, probe_dtype type, int ndim,
                                        const int64_t* shape) {
  (void)replay, (void)slot, (void)type, (void)ndim, (void)shape;
  return NULL;
}
static inline int64_t probe_replay_attr_int(probe_replay* replay, const char* name) {
  (void)replay, (void)name;
  return 0;
}
static inline double probe_replay_attr_double(probe_replay* replay, const char* name) {
  (void)replay, (void)name;
  return 0;
}
static inline const char* probe_replay_attr_string(probe_replay* replay, const char* name) {
  (void)replay, (void)name;
  return "";
}
static inline const int64_t* probe_replay_attr_ints(probe_replay* replay, const char* name, size_t* count) {
  (void)replay, (void)name;
  if (count) *count = 0;
  return NULL;
}
static inline int probe_replay_has_attr(const probe_replay* replay, const char* name) {
  (void)replay, (void)name;
  return 0;
}
static inline int probe_replay_has_input(const probe_replay* replay, const char* slot) {
  (void)replay, (void)slot;
  return 0;
}
static inline int probe_replay_has_output(const probe_replay* replay, const char* slot) {
  (void)replay, (void)slot;
  return 0;
}
static inline const char* probe_replay_op_name(const probe_replay* replay) {
  (void)replay;
  return "";
}
static inline const char* probe_replay_op_type(const probe_replay* replay) {
  (void)replay;
  return "";
}
static inline void probe_replay_fail(probe_replay* replay, const char* why) { (void)replay, (void)why; }
static inline int probe_replay_failed(const probe_replay* replay) {
  (void)replay;
  return 1;
}

#endif /* PROBE_DISABLE */

#ifdef __cplusplus
}
#endif

#endif /* PROBE_C_REPLAY_H */
