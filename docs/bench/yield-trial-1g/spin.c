#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
static uint64_t ns(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return (uint64_t)t.tv_sec*1000000000ull+t.tv_nsec;}
int main(void){
	volatile uint64_t x=0; uint64_t t0=ns();
	for(uint64_t i=0;i<20000000ull;i++) x+=i*i;
	uint64_t t1=ns();
	/* syscalls too */
	uint64_t t2=ns();
	for(int i=0;i<20000;i++) { struct timespec ts; clock_gettime(CLOCK_REALTIME,&ts); getppid(); }
	uint64_t t3=ns();
	printf("loop_ms %.1f sys_ms %.1f\n",(t1-t0)/1e6,(t3-t2)/1e6);
	return 0;
}
