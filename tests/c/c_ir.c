/* The IR entry points of probe.h from C: a module through two passes (one changes nothing),
 * its files and records, and nothing printed for a module the flags leave out.
 * usage: PROBE_FLAGS="--probe_dump_to=DIR --probe_dump_pass_re=.* --probe_dump_module_re=^net" c_ir DIR */
#include <probe/probe.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct graph {
  const char* text;
  int printed;
};

static void print_graph(void* user, probe_ir_text* out) {
  struct graph* g = (struct graph*)user;
  g->printed++;
  probe_ir_write(out, g->text, strlen(g->text));
}

static int failures = 0;
static void check(int cond, const char* what) {
  if (!cond) {
    printf("FAIL: %s\n", what);
    failures++;
  }
}

static char* read_all(const char* dir, const char* name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[65536];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  struct graph g = {"%y = Add(%x, %zero)\n", 0};
  probe_ir_module* m = probe_ir_module_open("net.fwd", 1);
  check(m != NULL && probe_ir_module_id(m) > 0, "the module is dumped");
  char name[128];
  snprintf(name, sizeof name, "module_%04u.net.fwd.0001.simplify.after.txt", probe_ir_module_id(m));
  probe_ir_pass_begin(m, "simplify", print_graph, &g);
  g.text = "%y = Copy(%x)\n";
  probe_ir_pass_end(m, print_graph, &g);
  probe_ir_pass_begin(m, "noop", print_graph, &g);
  probe_ir_pass_end(m, print_graph, &g);
  {
    float x[4] = {1, 2, 3, 4};
    const int64_t shape[1] = {4};
    const unsigned prev = probe_ir_set_running(probe_ir_module_id(m));
    probe_op* op = probe_op_begin("copy", "Copy", -1);
    probe_op_input(op, "x", x, PROBE_FLOAT32, 1, shape);
    probe_op_end(op);
    probe_ir_set_running(prev);
  }
  probe_ir_module_close(m, print_graph, &g);

  struct graph other = {"%z = Neg(%x)\n", 0};
  probe_ir_module* skipped = probe_ir_module_open("other", 1);
  check(skipped == NULL, "a module the filter leaves out is NULL");
  probe_ir_pass_begin(skipped, "p", print_graph, &other);
  probe_ir_pass_end(skipped, print_graph, &other);
  probe_ir_module_close(skipped, print_graph, &other);
  check(other.printed == 0, "nothing printed for it");
  probe_flush();

  const char* text = read_all(argv[1], name);
  check(text != NULL && strcmp(text, "%y = Copy(%x)\n") == 0, "the pass's file");
  const char* manifest = read_all(argv[1], "manifest.jsonl");
  check(manifest != NULL && strstr(manifest, "\"pass\":\"noop\",\"stage\":\"after\",\"changed\":false") != NULL,
        "the unchanged pass is recorded");
  check(manifest != NULL && strstr(manifest, "\"op\":\"copy\"") != NULL && strstr(manifest, ",\"module\":") != NULL,
        "the op names its module");
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
