/* SPDX-License-Identifier: MIT */
/*
 * Big-endian (network byte order) fields in a byte buffer, for the messages
 * the two sides exchange over TCP: written and read byte by byte, so that
 * neither alignment nor the host's byte order matters.
 */
#ifndef WIRE_H
#define WIRE_H

#include <stdint.h>

static inline void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put_u32(uint8_t *p, uint32_t v)
{
	put_u16(p, (uint16_t)(v >> 16));
	put_u16(p + 2, (uint16_t)v);
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
	put_u32(p, (uint32_t)(v >> 32));
	put_u32(p + 4, (uint32_t)v);
}

static inline uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)get_u16(p) << 16 | get_u16(p + 2);
}

static inline uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) << 32 | get_u32(p + 4);
}

#endif
