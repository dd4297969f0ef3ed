// Build-time knobs of the LBM example. The regression walkthrough (docs/walkthroughs/)
// commits changes to this file to make a "nightly" build slower, as a real change would.
#pragma once

// Extra work in the collision kernel, in percent of its own time (0: none). Overridden at
// run time by the environment variable LBM_SLOWDOWN_PERCENT.
#ifndef LBM_COLLIDE_SLOWDOWN_PERCENT
#define LBM_COLLIDE_SLOWDOWN_PERCENT 0
#endif
