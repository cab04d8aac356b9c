# The cluster check, a Python program, installed beside the C programs:
# scripts/cluster_check.py as bin/rdma_cluster_check, and its module
# scripts/cluster_plan.py in share/PACKAGE, where the program finds it
# from its own place (so any install prefix works). The program is made
# in the build tree at build time, with the module's place and the
# project's version written into it (make_cluster_check.cmake), so that
# the unit tests run the very file that gets installed.
#
# Needs RDMA_PACKAGE_NAME set before it is included.

file(RELATIVE_PATH RDMA_PLAN_REL ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_DATAROOTDIR}/${RDMA_PACKAGE_NAME})
set(RDMA_CLUSTER_CHECK ${PROJECT_BINARY_DIR}/rdma_cluster_check)
add_custom_command(OUTPUT ${RDMA_CLUSTER_CHECK}
		${PROJECT_BINARY_DIR}/cluster_plan.py
	COMMAND ${CMAKE_COMMAND} -E copy
		${PROJECT_SOURCE_DIR}/scripts/cluster_plan.py
		${PROJECT_BINARY_DIR}/cluster_plan.py
	COMMAND ${CMAKE_COMMAND} -DIN=${PROJECT_SOURCE_DIR}/scripts/cluster_check.py
		-DOUT=${RDMA_CLUSTER_CHECK} -DPLAN_REL=${RDMA_PLAN_REL}
		-DVERSION=${PROJECT_VERSION}
		-P ${CMAKE_CURRENT_LIST_DIR}/make_cluster_check.cmake
	DEPENDS ${PROJECT_SOURCE_DIR}/scripts/cluster_check.py
		${PROJECT_SOURCE_DIR}/scripts/cluster_plan.py
		${CMAKE_CURRENT_LIST_DIR}/make_cluster_check.cmake
	COMMENT "Making rdma_cluster_check from scripts/cluster_check.py"
	VERBATIM)
# The target is named apart from the file it makes: one name for both is
# a circular dependency to make.
add_custom_target(cluster_check_program ALL DEPENDS ${RDMA_CLUSTER_CHECK})

install(PROGRAMS ${RDMA_CLUSTER_CHECK} DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/scripts/cluster_plan.py
	DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/${RDMA_PACKAGE_NAME})
