# Unit tests of rdma_mc_example's pure parts (options, message text, GRH)
# and of the helpers it shares with rdma_rc_example (src/extras/grh.c,
# src/common/opt_error.c). Included by tests/unit/CMakeLists.txt once it
# has found cmocka; finds cmocka itself if included from elsewhere.
if(NOT TARGET PkgConfig::CMOCKA)
	pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
endif()

foreach(name test_mc_config test_grh test_opt_error)
	add_executable(${name} ${name}.c)
	target_link_libraries(${name} PRIVATE mc_steps PkgConfig::CMOCKA)
	add_test(NAME ${name} COMMAND ${name})
	set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT 30)
endforeach()
