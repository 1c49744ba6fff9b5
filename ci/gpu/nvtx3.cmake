# Included by ci/gpu/setup (CMAKE_PROJECT_INCLUDE) only when torch's CMake files fail on the missing
# NVTX 2 target CUDA::nvToolsExt, which CUDA >= 12.8 dropped: define it as an alias of NVTX 3 (header
# only) and tell torch's headers to use NVTX 3. The workaround torch extensions use (pytorch #116242).
find_package(CUDAToolkit QUIET)
if(TARGET CUDA::nvtx3 AND NOT TARGET CUDA::nvToolsExt)
  add_library(CUDA::nvToolsExt INTERFACE IMPORTED)
  target_compile_definitions(CUDA::nvToolsExt INTERFACE TORCH_CUDA_USE_NVTX3)
  target_link_libraries(CUDA::nvToolsExt INTERFACE CUDA::nvtx3)
endif()
