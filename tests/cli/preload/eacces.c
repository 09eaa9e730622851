/*
 * Test preload: a machine with one InfiniBand port whose umad device this
 * user may not open. libibumad's discovery calls (the CA list, umad_get_ca) answer as for a real
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

static struct umad_device_node mlx5_0 = { NULL, "mlx5_0" };
static umad_port_t port1;

struct umad_device_node *umad_get_ca_device_list(void)
{
	return &mlx5_0;
}

void umad_free_ca_device_list(struct umad_device_node *head)
{
	(void)head;
}

int umad_get_ca(const char *ca_name, umad_ca_t *ca)
{
	memset(ca, 0, sizeof(*ca));
	strncpy(ca->ca_name, ca_name, sizeof(ca->ca_name) - 1);
	ca->node_type = 1;
	ca->numports = 1;
	memset(&port1, 0, sizeof(port1));
	strcpy(port1.ca_name, "mlx5_0");
	strcpy(port1.link_layer, "InfiniBand");
	port1.portnum = 1;
	port1.base_lid = 7;
	port1.sm_lid = 1;
	port1.state = 4;
	port1.phys_state = 5;
	ca->ports[1] = &port1;
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
