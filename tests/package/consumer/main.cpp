#include <probe/probe.hpp>

#include <cstdio>
#include <vector>

#ifdef WITH_OTHER
int other_op();
#endif

int main(int argc, char** argv) {
  probe::init(argc, argv);
  std::vector<float> x(8, 1.f);
  {
    probe::op op("consumer", "Test");
    op.input("x", x);
    op.output("y", x);
  }
  int extra = 0;
#ifdef WITH_OTHER
  extra = other_op();
#endif
  std::printf("consumer ok %d\n", extra);
  return 0;
}
