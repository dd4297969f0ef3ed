/* Each part of probe.h a C engine uses, one mode per run: c_features MODE (PROBE_FLAGS set by
 * check_c_features.py, which reads what each mode printed and dumped). Built as C99 with the
 * strictest warnings, with OpenMP when the compiler has it (worker threads otherwise). */
#include <probe/probe.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_OPENMP)
#include <omp.h>
#else
#include <pthread.h>
#endif

/* A RoPE position, an epsilon, a mode, a permutation: attributes, not tensors. */
static int attrs(void) {
  float x[4] = {1, 2, 3, 4};
  const int64_t shape[1] = {4};
  const int64_t perm[3] = {0, 2, 1};
  probe_op* op = probe_op_begin("rope", "RoPE", 2);
  probe_op_attr_int(op, "pos", 7);
  probe_op_attr_double(op, "eps", 1e-5);
  probe_op_attr_bool(op, "causal", 1);
  probe_op_attr_string(op, "mode", "neox");
  probe_op_attr_ints(op, "perm", perm, 3);
  probe_op_input(op, "x", x, PROBE_FLOAT32, 1, shape);
  probe_op_output(op, "x", x, PROBE_FLOAT32, 1, shape);
  probe_op_end(op);
  return 0;
}

/* One head of a KV cache laid out [T, H, D]: a strided view, recorded as [T, D] alone; and
 * per-sample buffers recorded as one batch tensor. */
enum { T = 6, H = 4, D = 2 };
static int views(void) {
  static float cache[T * H * D];
  float s0[3] = {1, 2, 3}, s1[3] = {4, 5, 6};
  const void* samples[2];
  const int64_t head_shape[2] = {T, D}, head_strides[2] = {H * D, 1}, batch_shape[2] = {2, 3};
  int i, h;
  for (i = 0; i < T * H * D; ++i) cache[i] = (float)i;
  for (h = 0; h < H; ++h) {
    probe_op* op = probe_op_begin_sub("attn", "Attention", 3, "h", h);
    probe_op_tensor(op, PROBE_IN, "k", probe_tensor_strided(cache + h * D, PROBE_FLOAT32, 2, head_shape, head_strides));
    probe_op_end(op);
  }
  {  /* no layer: "h1.attn", never layer 0's */
    probe_op* op = probe_op_begin_sub("attn", "Attention", -1, "h", 1);
    probe_op_tensor(op, PROBE_IN, "k", probe_tensor_strided(cache + D, PROBE_FLOAT32, 2, head_shape, head_strides));
    probe_op_end(op);
  }
  samples[0] = s0;
  samples[1] = s1;
  {
    probe_op* op = probe_op_begin("gather", "Gather", -1);
    probe_op_tensor(op, PROBE_IN, "rows", probe_tensor_batch(samples, PROBE_FLOAT32, 2, batch_shape));
    probe_op_end(op);
  }
  return 0;
}

static int print(void) {
  double u[4] = {1, 2, 3, 4};
  const int64_t shape[1] = {3};
  probe_print("step %d loss %.3f", 3, 0.125);
  probe_print("u = %s, twice %s", probe_tensor_text(probe_tensor_of(u, PROBE_FLOAT64, 1, shape)),
              probe_tensor_text(probe_tensor_of(u + 1, PROBE_FLOAT64, 1, shape)));
  probe_print_ordered("ordered %s", "line");
  probe_effects_barrier();
  return 0;
}

struct seen {
  int calls;
  double sum;
  int ndim;
  int64_t n;
};
static void on_values(void* user, const probe_tensor* t, int n) {
  struct seen* s = (struct seen*)user;
  int64_t i;
  ++s->calls;
  if (n != 1 || t[0].type != PROBE_FLOAT32 || t[0].ndim != 1) return;
  s->ndim = t[0].ndim;
  s->n = t[0].shape[0];
  for (i = 0; i < t[0].shape[0]; ++i) s->sum += (double)((const float*)t[0].data)[i];
}
static int callback(void) {
  float v[3] = {1, 2, 3};
  const int64_t shape[1] = {3};
  struct seen s = {0, 0, 0, 0};
  probe_tensor t = probe_tensor_of(v, PROBE_FLOAT32, 1, shape);
  probe_callback(on_values, &s, &t, 1);
  v[0] = 100; /* after the call: the callback sees the copy taken at the call */
  probe_callback_ordered(on_values, &s, NULL, 0);
  probe_effects_barrier();
  printf("callback calls=%d sum=%g n=%lld\n", s.calls, s.sum, (long long)s.n);
  return s.calls == 2 && s.sum == 6 && s.n == 3 ? 0 : 1;
}

static int breakpoint(void) {
  double rho[2][3] = {{1, 2, 3}, {4, 5, 6}};
  const int64_t shape[2] = {2, 3};
  int step = 41;
  probe_op* op = probe_op_begin("collide", "Collide", -1);
  ++step;
  probe_breakpoint(probe_var_of("rho", rho, PROBE_FLOAT64, 2, shape), probe_var_int("step", &step)); /* BREAK */
  probe_breakpoint();
  probe_op_end(op);
  return 0;
}

static int nonfinite(void) {
  float u[3] = {1, 0, 2};
  const int64_t shape[1] = {3};
  /* the function form, without the caller's place (also under PROBE_DISABLE): finite, no stop */
  if ((probe_break_if_nonfinite)("u", u, PROBE_FLOAT32, 1, shape) != 0) return 1;
  u[1] = (float)NAN;
  return probe_break_if_nonfinite("u", u, PROBE_FLOAT32, 1, shape) == 1 ? 0 : 1; /* NONFINITE */
}

/* Ops on worker threads inside an op of the main thread name it as their parent. */
static float tiles[4][8];
static void tile(probe_op* parent, int t) {
  const int64_t shape[1] = {8};
  probe_op* adopted = probe_op_adopt(parent);
  probe_op* op = probe_op_begin_sub("tile", "Stencil", 0, "t", t);
  int i;
  for (i = 0; i < 8; ++i) tiles[t][i] = (float)(t * 8 + i);
  probe_op_output(op, "y", tiles[t], PROBE_FLOAT32, 1, shape);
  probe_op_end(op);
  probe_op_unadopt(adopted);
}
#if !defined(_OPENMP)
struct tile_arg {
  probe_op* parent;
  int t;
};
static void* tile_thread(void* p) {
  const struct tile_arg* a = (const struct tile_arg*)p;
  tile(a->parent, a->t);
  return NULL;
}
#endif
static int workers(void) {
  probe_op* step = probe_op_begin("step", "Step", 0);
  probe_op* parent = probe_op_current();
  if (parent != step) return 1;
#if defined(_OPENMP)
  {
    int t;
#pragma omp parallel for num_threads(4) schedule(static, 1)
    for (t = 0; t < 4; ++t) tile(parent, t);
  }
#else
  {
    pthread_t th[4];
    struct tile_arg a[4];
    int t;
    for (t = 0; t < 4; ++t) {
      a[t].parent = parent;
      a[t].t = t;
      pthread_create(&th[t], NULL, tile_thread, &a[t]);
    }
    for (t = 0; t < 4; ++t) pthread_join(th[t], NULL);
  }
#endif
  probe_op_end(step);
  return probe_op_current() == NULL ? 0 : 1;
}

static int at_end_and_link(void) {
  float y[4] = {0, 0, 0, 0}, copy[4];
  const int64_t shape[1] = {4};
  int i;
  probe_op* op = probe_op_begin("fill", "Fill", -1);
  probe_op_output_at_end(op, "y", y, PROBE_FLOAT32, 1, shape);
  for (i = 0; i < 4; ++i) y[i] = 42.0f; /* written after the output was described */
  probe_op_end(op);
  for (i = 0; i < 4; ++i) copy[i] = y[i] + 0.0f; /* a copy probe cannot follow by address */
  op = probe_op_begin("use", "Use", -1);
  probe_op_link(op, "x", "fill#0/out/y");
  probe_op_input(op, "x", copy, PROBE_FLOAT32, 1, shape);
  probe_op_end(op);
  return 0;
}

/* A kernel written in C: replay re-runs "scale" alone from its snapshot. C_FEATURES_KERNEL
 * plants a wrong result ("wrong") or a request the snapshot cannot meet ("missing"). */
static void scale_kernel(probe_replay* r) {
  int64_t shape[PROBE_MAX_DIMS];
  int ndim = 0, i;
  const char* plant = getenv("C_FEATURES_KERNEL");
  const float* x = (const float*)probe_replay_input(r, "x", PROBE_FLOAT32, &ndim, shape);
  float* y = (float*)probe_replay_output(r, "y", PROBE_FLOAT32, ndim, shape);
  const double factor = probe_replay_attr_double(r, "factor");
  const int64_t offset = probe_replay_has_attr(r, "offset") ? probe_replay_attr_int(r, "offset") : 0;
  if (plant && strcmp(plant, "missing") == 0) probe_replay_attr_string(r, "no_such_attr");
  if (probe_replay_failed(r)) return;
  for (i = 0; i < shape[0]; ++i) y[i] = (float)((double)x[i] * factor) + (float)offset;
  if (plant && strcmp(plant, "wrong") == 0) y[1] += 1.0f;
}
/* The reference form, for --probe_reference: the same result, and a line that says it ran. */
static void scale_reference(probe_replay* r) {
  fprintf(stderr, "reference kernel for %s (%s), reference mode %d\n", probe_replay_op_name(r), probe_replay_op_type(r),
          probe_reference_mode());
  scale_kernel(r);
}
static int replay_source(void) {
  float x[4] = {1, 2, 3, 4}, y[4];
  const int64_t shape[1] = {4};
  int i;
  probe_op* op = probe_op_begin("scale", "Scale", -1);
  probe_op_attr_double(op, "factor", 2.5);
  probe_op_attr_int(op, "offset", 1);
  probe_op_input(op, "x", x, PROBE_FLOAT32, 1, shape);
  for (i = 0; i < 4; ++i) y[i] = x[i] * 2.5f + 1.0f;
  probe_op_output(op, "y", y, PROBE_FLOAT32, 1, shape);
  probe_op_end(op);
  return 0;
}

static int sink_calls;
static void sink(const char* message, void* user) {
  ++sink_calls;
  fprintf(stdout, "sink[%s]: %s\n", (const char*)user, message);
}
static int log_sink(void) {
  probe_set_log_sink(sink, "mine");
  probe_set_flags("--probe_dump_to_typo=x");
  probe_set_log_sink(NULL, NULL);
  return sink_calls > 0 ? 0 : 1;
}

/* What C callers get wrong, survived: ops ended out of order and twice, shapes whose byte
 * count overflows, a null argv, a scope site whose id probe did not give. */
static int misuse(void) {
  float x[4] = {1, 2, 3, 4};
  const int64_t four[1] = {4};
  const int64_t huge[1] = {INT64_MAX};
  const int64_t wraps[3] = {(int64_t)1 << 32, (int64_t)1 << 32, 4};
  static probe_scope_site site = {"misused", __FILE__, __func__, __LINE__, 123456789u};
  int argc2 = 2;
  int i;
  probe_op* a;
  probe_op* b;
  probe_op* inner;
  probe_op* outer;
  probe_scope scope;
  probe_init(&argc2, NULL);
  if (argc2 != 2) return 1;
  /* an early exit skipped a's end: a ends before b, b after it */
  a = probe_op_begin("a", "A", -1);
  probe_op_input(a, "x", x, PROBE_FLOAT32, 1, four);
  b = probe_op_begin("b", "B", -1);
  probe_op_input(b, "x", x, PROBE_FLOAT32, 1, four);
  probe_op_end(a);
  if (probe_op_current() != b) return 2;
  probe_breakpoint(probe_var_of("x", x, PROBE_FLOAT32, 1, four)); /* frames: b inside a, no cycle */
  probe_op_end(b);
  if (probe_op_current() != NULL) return 3;
  /* ended twice */
  outer = probe_op_begin("outer", "Outer", -1);
  inner = probe_op_begin("inner", "Inner", -1);
  probe_op_end(inner);
  probe_op_end(inner);
  probe_op_end(outer);
  if (probe_op_current() != NULL) return 4;
  /* byte counts past memory */
  outer = probe_op_begin("huge", "Huge", -1);
  probe_op_output(outer, "y", x, PROBE_FLOAT32, 1, huge);
  probe_op_output(outer, "z", x, PROBE_FLOAT32, 3, wraps);
  probe_op_end(outer);
  for (i = 0; i < 3; ++i) {
    scope = probe_scope_begin(&site);
    probe_scope_end(scope);
  }
  /* later ops nest as they should */
  outer = probe_op_begin("after", "After", -1);
  probe_op_input(outer, "x", x, PROBE_FLOAT32, 1, four);
  inner = probe_op_begin("child", "Child", -1);
  probe_op_output(inner, "x", x, PROBE_FLOAT32, 1, four);
  probe_op_end(inner);
  probe_op_end(outer);
  return probe_op_current() == NULL ? 0 : 5;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int rc = 2;
  probe_register_kernel("Scale", scale_kernel, scale_reference);
  if (strcmp(mode, "help") != 0) probe_init(&argc, argv);
  if (strcmp(mode, "version") == 0) {
    printf("version %d header %d release %s\n", probe_version(), PROBE_C_API_VERSION, probe_version_string());
    printf("reference %d reproducible %d\n", probe_reference_mode(), probe_reproducible_mode());
    rc = probe_version() == PROBE_C_API_VERSION ? 0 : 1;
  } else if (strcmp(mode, "help") == 0) {
    probe_help(stdout);
    rc = 0;
  } else if (strcmp(mode, "attrs") == 0) {
    rc = attrs();
  } else if (strcmp(mode, "views") == 0) {
    rc = views();
  } else if (strcmp(mode, "print") == 0) {
    rc = print();
  } else if (strcmp(mode, "callback") == 0) {
    rc = callback();
  } else if (strcmp(mode, "breakpoint") == 0) {
    rc = breakpoint();
  } else if (strcmp(mode, "nonfinite") == 0) {
    rc = nonfinite();
  } else if (strcmp(mode, "workers") == 0) {
    rc = workers();
  } else if (strcmp(mode, "at_end_link") == 0) {
    rc = at_end_and_link();
  } else if (strcmp(mode, "replay") == 0) {
    rc = replay_source();
  } else if (strcmp(mode, "log_sink") == 0) {
    rc = log_sink();
  } else if (strcmp(mode, "misuse") == 0) {
    rc = misuse();
  }
  probe_flush();
  return rc;
}
