# The files a Debian package holds beside the programs, made in the build
# tree for the top-level CMakeLists.txt to install:
#   RDMA_MAN_PAGES  the six man pages, gzip -9n compressed
#   RDMA_DOC_FILES  copyright (DEP-5, its text from LICENSE) and
#                   changelog.gz, for share/doc/PACKAGE
# gzip -9 is the compression Debian policy asks of man pages and changelogs
# (lintian checks it); -n leaves the name and time stamp out of the header,
# so that the same page gives the same bytes in every build.
#
# The package's version has no Debian revision (0.1.0, not 0.1.0-1): the
# project packages itself, a "native" package in Debian's words, whose one
# changelog is named changelog.gz (a package of someone else's source would
# carry changelog.Debian.gz beside the upstream one).
#
# Needs RDMA_PACKAGE_MAINTAINER set before it is included.

find_program(RDMA_GZIP gzip)
if(NOT RDMA_GZIP)
	message(FATAL_ERROR "gzip not found: the man pages and the changelog are installed compressed (Debian: gzip)")
endif()

set(RDMA_PACKAGING_DIR ${PROJECT_BINARY_DIR}/packaging)

# SOURCE (a file) compressed as DIR/NAME.gz at build time; its path is
# appended to the list named by OUT_LIST.
function(rdma_gzip source dir out_list)
	get_filename_component(name ${source} NAME)
	add_custom_command(OUTPUT ${dir}/${name}.gz
		COMMAND ${CMAKE_COMMAND} -E copy ${source} ${dir}/${name}
		COMMAND ${RDMA_GZIP} -9nf ${dir}/${name}
		DEPENDS ${source}
		COMMENT "Compressing ${name} (gzip -9n)"
		VERBATIM)
	set(${out_list} ${${out_list}} ${dir}/${name}.gz PARENT_SCOPE)
endfunction()

set(RDMA_MAN_PAGES)
foreach(program rdma_rc_example rdma_lessons rdma_mc_example rdma_check
		rdma_bench rdma_cluster_check)
	rdma_gzip(${PROJECT_SOURCE_DIR}/man/${program}.1
		  ${RDMA_PACKAGING_DIR}/man RDMA_MAN_PAGES)
endforeach()

# The changelog: one entry, this version, dated when CMake configures
# (SOURCE_DATE_EPOCH, when set, fixes the date, as for any reproducible
# build). Written first where the copy before compression does not land.
string(TIMESTAMP RDMA_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(${CMAKE_CURRENT_LIST_DIR}/changelog.in
	       ${RDMA_PACKAGING_DIR}/configured/changelog @ONLY)
set(RDMA_DOC_FILES ${RDMA_PACKAGING_DIR}/copyright)
rdma_gzip(${RDMA_PACKAGING_DIR}/configured/changelog ${RDMA_PACKAGING_DIR}
	  RDMA_DOC_FILES)

# The copyright file: LICENSE's copyright line and its text, the text as a
# DEP-5 License paragraph (each line indented by a space, an empty line
# written " ."). CMake configures again when LICENSE changes.
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY
	     CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/LICENSE)
file(READ ${PROJECT_SOURCE_DIR}/LICENSE license)
if(NOT license MATCHES "Copyright \\(c\\) ([^\n]+)\n")
	message(FATAL_ERROR "LICENSE has no \"Copyright (c) ...\" line for the package's copyright file")
endif()
set(RDMA_COPYRIGHT "${CMAKE_MATCH_1}")
string(FIND "${license}" "Permission is hereby granted" start)
if(start LESS 0)
	message(FATAL_ERROR "LICENSE has no MIT permission text for the package's copyright file")
endif()
string(SUBSTRING "${license}" ${start} -1 body)
string(STRIP "${body}" body)
string(REPLACE "\n\n" "\n.\n" body "${body}")
string(REPLACE "\n" "\n " RDMA_LICENSE_BODY " ${body}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/copyright.in
	       ${RDMA_PACKAGING_DIR}/copyright @ONLY)

add_custom_target(package_docs ALL DEPENDS ${RDMA_MAN_PAGES} ${RDMA_DOC_FILES})
