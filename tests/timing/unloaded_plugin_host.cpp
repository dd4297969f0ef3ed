// Loads unloaded_plugin, runs it, unloads it, and exits with timing on: the plugin's scope
// site is unmapped when the exit handler drains its events.
//   unloaded_plugin_host PLUGIN.so
#include <probe/probe.hpp>

#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  probe::init(argc, argv);
  {
    PROBE_SCOPE("host_scope");
  }
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  auto run = reinterpret_cast<void (*)()>(dlsym(lib, "plugin_run"));
  if (!run) return 2;
  run();
  dlclose(lib);
  std::printf("unloaded\n");
  return 0;
}
