# Unit tests of rdma_mc_example's pure parts (options, message text, GRH).
# Included by tests/unit/CMakeLists.txt; finds cmocka itself if that file
# has not.
if(NOT TARGET PkgConfig::CMOCKA)
	pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
endif()

add_executable(test_mc_config test_mc_config.c)
target_link_libraries(test_mc_config PRIVATE mc_steps PkgConfig::CMOCKA)
add_test(NAME test_mc_config COMMAND test_mc_config)
set_tests_properties(test_mc_config PROPERTIES LABELS unit TIMEOUT 30)
