# cmake -DIN=cluster_check.py -DOUT=rdma_cluster_check -DPLAN_REL=DIR
#       -DVERSION=X.Y.Z -P make_cluster_check.cmake
# Writes the installed cluster check: IN with its two placeholders set,
# PLAN_DIR (cluster_plan.py's place, relative to the program's own) and
# VERSION, as an executable file.
file(READ ${IN} text)
foreach(line "PLAN_DIR = None" "VERSION = None")
	string(FIND "${text}" "\n${line}\n" at)
	if(at EQUAL -1)
		message(FATAL_ERROR "${IN} has no line '${line}'")
	endif()
endforeach()
string(REPLACE "\nPLAN_DIR = None\n"
	"\nPLAN_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), \"${PLAN_REL}\")\n"
	text "${text}")
string(REPLACE "\nVERSION = None\n" "\nVERSION = \"${VERSION}\"\n" text "${text}")
get_filename_component(dir ${OUT} DIRECTORY)
get_filename_component(name ${OUT} NAME)
file(WRITE ${dir}/.${name}.tmp "${text}")
file(COPY ${dir}/.${name}.tmp DESTINATION ${dir}/.${name}.d
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
		      GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
file(RENAME ${dir}/.${name}.d/.${name}.tmp ${OUT})
file(REMOVE ${dir}/.${name}.tmp)
file(REMOVE_RECURSE ${dir}/.${name}.d)
