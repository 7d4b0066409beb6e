# The calibration contract between the profiler and the simulator: the one reader of calibration
# files and the one table of datasheet peaks, with what they need (the InputError type, strict
# JSON input), and the one writer of output files. Plain C++ and nlohmann-json, nothing else, so
# that profiler/ builds them on a GPU machine that has only the CUDA toolkit (profiler/README.md).
# Included by sim/CMakeLists.txt, and by profiler/CMakeLists.txt when it configures on its own;
# needs nlohmann_json::nlohmann_json.
set(_dtsim_sim ${CMAKE_CURRENT_LIST_DIR})

if(NOT TARGET dtsim_input_error)
  add_library(dtsim_input_error STATIC ${_dtsim_sim}/base/input_error.cpp)
  target_include_directories(dtsim_input_error PUBLIC ${_dtsim_sim}/base)
endif()

add_library(dtsim_json_input STATIC ${_dtsim_sim}/base/input_file.cpp ${_dtsim_sim}/base/json_input.cpp)
target_include_directories(dtsim_json_input PUBLIC ${_dtsim_sim}/base)
target_link_libraries(dtsim_json_input PUBLIC dtsim_input_error nlohmann_json::nlohmann_json)

# Output files written whole, never over a device or an input (plain std and POSIX): the
# profiler's calibrations and recordings too.
add_library(dtsim_output_file STATIC ${_dtsim_sim}/base/atomic_file.cpp)
target_include_directories(dtsim_output_file PUBLIC ${_dtsim_sim}/base)

add_library(dtsim_calibration_contract STATIC
  ${_dtsim_sim}/hardware/calibration_file_reader.cpp
  ${_dtsim_sim}/hardware/datasheet_peaks.cpp
  ${_dtsim_sim}/hardware/device_spec.cpp
)
target_include_directories(dtsim_calibration_contract PUBLIC ${_dtsim_sim}/hardware)
target_link_libraries(dtsim_calibration_contract PUBLIC dtsim_json_input)
