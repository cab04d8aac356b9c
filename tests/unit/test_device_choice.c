// SPDX-License-Identifier: MIT
/* GID and MTU choice from given port data, no device needed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "device.h"

static struct ibv_gid_entry entry(uint32_t index, enum ibv_gid_type type,
				  const uint8_t raw[16])
{
	struct ibv_gid_entry e = {
		.gid_index = index,
		.port_num = 1,
		.gid_type = type,
	};

	memcpy(e.gid.raw, raw, 16);
	return e;
}

static const uint8_t link_local[16] = {0xfe, 0x80, 0,	 0,    0,    0,
				       0,    0,	   0x02, 0x11, 0x22, 0xff,
				       0xfe, 0x33, 0x44, 0x55};
static const uint8_t ipv4_mapped[16] = {0, 0, 0,    0,	  0,   0, 0, 0,
					0, 0, 0xff, 0xff, 192, 0, 2, 1};

static void test_ipv4_mapped(void **state)
{
	union ibv_gid gid;

	(void)state;
	memcpy(gid.raw, ipv4_mapped, 16);
	assert_true(gid_is_ipv4_mapped(&gid));
	memcpy(gid.raw, link_local, 16);
	assert_false(gid_is_ipv4_mapped(&gid));
}

/* Only an entry both RoCE v2 and IPv4-mapped will do. */
static void test_pick_roce_v2_ipv4(void **state)
{
	const struct ibv_gid_entry table[] = {
		entry(0, IBV_GID_TYPE_ROCE_V1, link_local),
		entry(1, IBV_GID_TYPE_ROCE_V2, link_local),
		entry(2, IBV_GID_TYPE_ROCE_V1, ipv4_mapped),
		entry(5, IBV_GID_TYPE_ROCE_V2, ipv4_mapped),
	};

	(void)state;
	assert_int_equal(gid_pick_roce_v2_ipv4(table, 4), 5);
}

static void test_pick_rxe_table(void **state)
{
	const struct ibv_gid_entry table[] = {
		entry(0, IBV_GID_TYPE_ROCE_V2, link_local),
		entry(1, IBV_GID_TYPE_ROCE_V2, ipv4_mapped),
	};

	(void)state;
	assert_int_equal(gid_pick_roce_v2_ipv4(table, 2), 1);
}

static void test_pick_none(void **state)
{
	const struct ibv_gid_entry table[] = {
		entry(0, IBV_GID_TYPE_IB, link_local),
		entry(1, IBV_GID_TYPE_ROCE_V1, ipv4_mapped),
	};

	(void)state;
	assert_int_equal(gid_pick_roce_v2_ipv4(table, 2), -ENOENT);
	assert_int_equal(gid_pick_roce_v2_ipv4(table, 0), -ENOENT);
}

static void test_mtu(void **state)
{
	struct ibv_port_attr port = {.active_mtu = IBV_MTU_1024,
				     .max_mtu = IBV_MTU_4096};

	(void)state;
	assert_int_equal(mtu_choose(&port), IBV_MTU_1024);
	port.active_mtu = IBV_MTU_4096;
	assert_int_equal(mtu_choose(&port), IBV_MTU_4096);
	port.active_mtu = 0;
	assert_int_equal(mtu_choose(&port), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_mapped),
		cmocka_unit_test(test_pick_roce_v2_ipv4),
		cmocka_unit_test(test_pick_rxe_table),
		cmocka_unit_test(test_pick_none),
		cmocka_unit_test(test_mtu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
