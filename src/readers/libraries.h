/* Library versions (CUDA, cuDNN, TensorRT, VPI, OpenCV, Vulkan) from files
 * and package metadata under the sysroot; never runs nvcc, opencv_version
 * or vulkaninfo. */
#pragma once

#include "board.h"
#include "dpkg.h"

void jd_libraries_read(const jd_sysroot *sr, const jd_dpkg *db, jd_board *b);
