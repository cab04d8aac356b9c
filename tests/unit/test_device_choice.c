// SPDX-License-Identifier: MIT
/* Device, GID and MTU choice from given data, no device needed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

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

/*
 * TCP over another network: the one RoCE v2 GID a router forwards; a
 * link-local address (fe80::/10, 169.254/16) or a RoCE v1 GID is none;
 * two such GIDs decide nothing.
 */
static void test_pick_only_routable(void **state)
{
	static const uint8_t ipv4_link_local[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 169, 254, 7, 1};
	static const uint8_t ipv6_global[16] = {0xfd, 0, 0x99, 0, 0, 0, 0, 0,
						0,    0, 0,    0, 0, 0, 0, 2};
	const struct ibv_gid_entry rxe[] = {
		entry(0, IBV_GID_TYPE_ROCE_V2, link_local),
		entry(1, IBV_GID_TYPE_ROCE_V2, ipv4_mapped),
	};
	const struct ibv_gid_entry mlx5[] = {
		entry(0, IBV_GID_TYPE_ROCE_V1, link_local),
		entry(1, IBV_GID_TYPE_ROCE_V2, link_local),
		entry(2, IBV_GID_TYPE_ROCE_V1, ipv4_mapped),
		entry(3, IBV_GID_TYPE_ROCE_V2, ipv4_mapped),
		entry(4, IBV_GID_TYPE_ROCE_V2, ipv4_link_local),
	};
	const struct ibv_gid_entry two[] = {
		entry(0, IBV_GID_TYPE_ROCE_V2, link_local),
		entry(1, IBV_GID_TYPE_ROCE_V2, ipv4_mapped),
		entry(2, IBV_GID_TYPE_ROCE_V2, ipv6_global),
	};
	const struct ibv_gid_entry v1_only[] = {
		entry(0, IBV_GID_TYPE_ROCE_V1, link_local),
		entry(1, IBV_GID_TYPE_ROCE_V1, ipv4_mapped),
	};

	(void)state;
	assert_int_equal(gid_pick_only_routable(rxe, 2), 1);
	assert_int_equal(gid_pick_only_routable(mlx5, 5), 3);
	assert_int_equal(gid_pick_only_routable(two, 3), -E2BIG);
	assert_int_equal(gid_pick_only_routable(two, 2), 1);
	assert_int_equal(gid_pick_only_routable(v1_only, 2), -ENOENT);
	assert_int_equal(gid_pick_only_routable(rxe, 1), -ENOENT);
}

/* A GID index is found only when its entry is there (not an empty slot). */
static void test_entry_find(void **state)
{
	const struct ibv_gid_entry table[] = {
		entry(0, IBV_GID_TYPE_ROCE_V2, link_local),
		entry(3, IBV_GID_TYPE_ROCE_V2, ipv4_mapped),
	};

	(void)state;
	assert_ptr_equal(gid_entry_find(table, 2, 3), &table[1]);
	assert_ptr_equal(gid_entry_find(table, 2, 0), &table[0]);
	assert_null(gid_entry_find(table, 2, 1));
	assert_null(gid_entry_find(table, 1, 3));
	assert_null(gid_entry_find(table, 0, 0));
}

static struct ibv_device device(const char *name,
				enum ibv_transport_type transport)
{
	struct ibv_device dev = {.transport_type = transport};

	snprintf(dev.name, sizeof(dev.name), "%s", name);
	return dev;
}

/*
 * Without -d, the device of a run (and of --check): the first one that is
 * not iWARP, so a host listing siw0 before rxe0 uses rxe0.
 */
static void test_device_find(void **state)
{
	struct ibv_device siw0 = device("siw0", IBV_TRANSPORT_IWARP),
			  siw1 = device("siw1", IBV_TRANSPORT_IWARP),
			  rxe0 = device("rxe0", IBV_TRANSPORT_IB),
			  mlx5 = device("mlx5_0", IBV_TRANSPORT_IB);
	struct ibv_device *siw_first[] = {&siw0, &rxe0, &mlx5};
	struct ibv_device *rxe_first[] = {&rxe0, &siw0};
	struct ibv_device *iwarp_only[] = {&siw1, &siw0};

	(void)state;
	assert_ptr_equal(device_find(siw_first, 3, NULL), &rxe0);
	assert_ptr_equal(device_find(rxe_first, 2, NULL), &rxe0);
	/* iWARP alone: the first, whose refusal says to add -R */
	assert_ptr_equal(device_find(iwarp_only, 2, NULL), &siw1);
	assert_null(device_find(siw_first, 0, NULL));
	/* -d names any device, iWARP too; one not listed is none */
	assert_ptr_equal(device_find(siw_first, 3, "siw0"), &siw0);
	assert_ptr_equal(device_find(siw_first, 3, "mlx5_0"), &mlx5);
	assert_null(device_find(siw_first, 3, "rxe1"));
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

/* An empty GID table is named as such, not as memory that ran short. */
static void test_no_gids(void **state)
{
	char line[DEVICE_NO_GIDS_MAX];

	(void)state;
	device_no_gids_line(line, sizeof(line), "rxe0", 1, 0);
	assert_string_equal(
		line,
		"failed to choose a GID of rxe0 port 1: the port has no GIDs (0 slots, none in use): give its network interface an IP address, or check that it is up");
	device_no_gids_line(line, sizeof(line), "rxe0", 2, 1024);
	assert_non_null(
		strstr(line, "rxe0 port 2: the port has no GIDs (1024 slots"));
}

/* The GID RoCE gives an address: IPv4 mapped, IPv6 as it is. */
static void test_gid_of_address(void **state)
{
	struct sockaddr_in in = {.sin_family = AF_INET};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
	struct sockaddr other = {.sa_family = AF_UNIX};
	union ibv_gid gid;

	(void)state;
	inet_pton(AF_INET, "192.0.2.1", &in.sin_addr);
	assert_int_equal(gid_of_address((struct sockaddr *)&in, &gid), 0);
	assert_memory_equal(gid.raw, ipv4_mapped, 16);
	/* A dual-stack socket's IPv4 peer: ::ffff:192.0.2.1, the same GID. */
	inet_pton(AF_INET6, "::ffff:192.0.2.1", &in6.sin6_addr);
	assert_int_equal(gid_of_address((struct sockaddr *)&in6, &gid), 0);
	assert_memory_equal(gid.raw, ipv4_mapped, 16);
	inet_pton(AF_INET6, "fe80::211:22ff:fe33:4455", &in6.sin6_addr);
	assert_int_equal(gid_of_address((struct sockaddr *)&in6, &gid), 0);
	assert_memory_equal(gid.raw, link_local, 16);
	assert_int_equal(gid_of_address(&other, &gid), -EAFNOSUPPORT);

	assert_false(address_is_loopback((struct sockaddr *)&in6));
	inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
	assert_true(address_is_loopback((struct sockaddr *)&in));
	inet_pton(AF_INET6, "::1", &in6.sin6_addr);
	assert_true(address_is_loopback((struct sockaddr *)&in6));
	inet_pton(AF_INET6, "::ffff:127.0.0.2", &in6.sin6_addr);
	assert_true(address_is_loopback((struct sockaddr *)&in6));
	inet_pton(AF_INET, "192.0.2.1", &in.sin_addr);
	assert_false(address_is_loopback((struct sockaddr *)&in));
}

/*
 * Two subnets on one port, the other one first in the table (as when the
 * shared address was added last): the GID of the connection's address
 * wins, RoCE v2 before v1, whatever comes first.
 */
static void test_pick_by_address(void **state)
{
	static const uint8_t other[16] = {0, 0, 0,    0,    0,	0,  0, 0,
					  0, 0, 0xff, 0xff, 10, 99, 0, 1};
	const struct ibv_gid_entry table[] = {
		entry(0, IBV_GID_TYPE_ROCE_V1, link_local),
		entry(1, IBV_GID_TYPE_ROCE_V2, link_local),
		entry(2, IBV_GID_TYPE_ROCE_V1, other),
		entry(3, IBV_GID_TYPE_ROCE_V2, other),
		entry(4, IBV_GID_TYPE_ROCE_V1, ipv4_mapped),
		entry(5, IBV_GID_TYPE_ROCE_V2, ipv4_mapped),
	};
	union ibv_gid want;

	(void)state;
	memcpy(want.raw, ipv4_mapped, 16);
	/* The rule without the connection would take index 3. */
	assert_int_equal(gid_pick_roce_v2_ipv4(table, 6), 3);
	assert_int_equal(gid_pick_by_address(table, 6, &want), 5);
	/* RoCE v1 only when no v2 entry has the address. */
	assert_int_equal(gid_pick_by_address(table, 5, &want), 4);
	memcpy(want.raw, link_local, 16);
	assert_int_equal(gid_pick_by_address(table, 6, &want), 1);
	memcpy(want.raw, other, 16);
	want.raw[15] = 2; /* 10.99.0.2: the peer's, not this port's */
	assert_int_equal(gid_pick_by_address(table, 6, &want), -ENOENT);
	assert_int_equal(gid_pick_by_address(table, 0, &want), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_mapped),
		cmocka_unit_test(test_pick_roce_v2_ipv4),
		cmocka_unit_test(test_pick_rxe_table),
		cmocka_unit_test(test_pick_none),
		cmocka_unit_test(test_pick_only_routable),
		cmocka_unit_test(test_gid_of_address),
		cmocka_unit_test(test_pick_by_address),
		cmocka_unit_test(test_entry_find),
		cmocka_unit_test(test_device_find),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_no_gids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
