/*
 * Test preload: a machine with one InfiniBand port whose umad device this
 * user may not open. libibumad's discovery calls answer as for a real
 * mlx5_0 port 1; umad_open_port fails as libibumad's does when open() of
 * /dev/infiniband/umad0 says EACCES: it returns -EIO and leaves EACCES in
 * errno (rdma-core libibumad/umad.c, do_umad_open_port).
 */
#include <errno.h>
#include <string.h>

#include <infiniband/umad.h>

int umad_init(void)
{
	return 0;
}

int umad_done(void)
{
	return 0;
}

int umad_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	(void)ca_name;
	memset(port, 0, sizeof(*port));
	strcpy(port->ca_name, "mlx5_0");
	port->portnum = portnum ? portnum : 1;
	port->base_lid = 7;
	port->sm_lid = 1;
	port->state = 4;
	return 0;
}

int umad_release_port(umad_port_t *port)
{
	(void)port;
	return 0;
}

int umad_get_ca(const char *ca_name, umad_ca_t *ca)
{
	memset(ca, 0, sizeof(*ca));
	strncpy(ca->ca_name, ca_name, sizeof(ca->ca_name) - 1);
	ca->node_type = 1;
	ca->numports = 1;
	return 0;
}

int umad_release_ca(umad_ca_t *ca)
{
	(void)ca;
	return 0;
}

int umad_open_port(const char *ca_name, int portnum)
{
	(void)ca_name;
	(void)portnum;
	errno = EACCES;
	return -EIO;
}
