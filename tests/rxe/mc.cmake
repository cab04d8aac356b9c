# rdma_mc_example's scenarios on the shared soft-RoCE guests.  Included by
# tests/rxe/CMakeLists.txt, whose rxe_add_test() passes RXE_TEST_ENV.
if(TARGET rdma_mc_example)
	list(APPEND RXE_TEST_ENV
	     RDMA_MC_EXAMPLE=$<TARGET_FILE:rdma_mc_example>)
endif()

rxe_add_test(rxe_mc_one_guest mc_one_guest.sh TIMEOUT 240)
rxe_add_test(rxe_mc_two_guests mc_two_guests.sh TIMEOUT 240)
rxe_add_test(rxe_mc_timeout mc_timeout.sh TIMEOUT 150)
