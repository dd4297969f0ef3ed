// JSON for probe's files (manifests, snapshots, results): a streaming writer
// (json_write.hpp), a document type (json_value.hpp) and a reader (json_read.hpp).
// Internal: the library writes its files with it, the CLI reads them.
#pragma once
#include "json_read.hpp"
#include "json_value.hpp"
#include "json_write.hpp"
