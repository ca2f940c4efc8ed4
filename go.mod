module github.com/netkit/netkit

go 1.26
