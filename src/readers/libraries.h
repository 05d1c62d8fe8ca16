/* Library versions (CUDA, cuDNN, TensorRT, VPI, OpenCV, Vulkan) from files
 * and package metadata under the sysroot; never runs nvcc, opencv_version
 * or vulkaninfo. */
#pragma once

#include "board.h"
#include "dpkg.h"

void jd_libraries_read(const jd_sysroot *sr, const jd_dpkg *db, jd_board *b);

/* Exposed for tests: whether TEXT nests no deeper than MAX brackets
 * (strings aside), and the CUDA version of a version.json. */
bool jd_json_depth_ok(const char *text, size_t len, unsigned max);
bool jd_parse_cuda_version_json(const char *json, size_t len, char *out, size_t size);
