! tests/fortran/groups.f: MPI_GROUP_RANGE_INCL / EXCL (RANGES(3, N) in
! Fortran order), MPI_COMM_CREATE_GROUP on the even ranks,
! MPI_COMM_DUP_WITH_INFO / MPI_COMM_IDUP_WITH_INFO with
! MPI_COMM_GET_INFO / SET_INFO, MPI_TYPE_CREATE_DARRAY (block
! distribution: its size is this rank's share), and MPI_ALLOC_MEM /
! MPI_FREE_MEM (an address in an INTEGER(KIND=MPI_ADDRESS_KIND)).
! Prints PASS.
      program groups
      implicit none
      include 'mpif.h'
      integer rank, p, ierr, wg, g, n, r, rg(3, 2), comm, dup, req
      integer info, iused, dt, sz
      integer gs(1), ds(1), da(1), ps(1)
      integer (kind=MPI_ADDRESS_KIND) base, msize
      logical flag
      character*16 val

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      call mpi_comm_group(MPI_COMM_WORLD, wg, ierr)

c     ---- ranges: the even ranks, then all but the even ranks ----
      rg(1, 1) = 0
      rg(2, 1) = p - 1
      rg(3, 1) = 2
      call mpi_group_range_incl(wg, 1, rg, g, ierr)
      call mpi_group_size(g, n, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. n .eq. (p + 1) / 2,
     &     'range_incl size')
      call mpi_group_rank(g, r, ierr)
      if (mod(rank, 2) .eq. 0) then
         call check(r .eq. rank / 2, 'range_incl rank')
      else
         call check(r .eq. MPI_UNDEFINED, 'range_incl UNDEFINED')
      endif
c     comm_create_group: collective over the even ranks only
      if (mod(rank, 2) .eq. 0) then
         call mpi_comm_create_group(MPI_COMM_WORLD, g, 7, comm, ierr)
         call check(ierr .eq. MPI_SUCCESS, 'comm_create_group')
         call mpi_comm_size(comm, n, ierr)
         call check(n .eq. (p + 1) / 2, 'comm_create_group size')
         call mpi_comm_free(comm, ierr)
      endif
      call mpi_group_free(g, ierr)
      call mpi_group_range_excl(wg, 1, rg, g, ierr)
      call mpi_group_size(g, n, ierr)
      call check(n .eq. p / 2, 'range_excl size')
      call mpi_group_free(g, ierr)
      call mpi_group_free(wg, ierr)

c     ---- info on communicators ----
      call mpi_info_create(info, ierr)
      call mpi_info_set(info, 'mpi_assert_no_any_tag', 'true', ierr)
      call mpi_comm_dup_with_info(MPI_COMM_WORLD, info, dup, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. dup .ne. MPI_COMM_NULL,
     &     'dup_with_info')
      call mpi_comm_set_info(dup, info, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'comm_set_info')
      call mpi_comm_get_info(dup, iused, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. iused .ne. MPI_INFO_NULL,
     &     'comm_get_info')
      call mpi_info_get(iused, 'mpi_assert_no_any_tag', 16, val, flag,
     &     ierr)
      if (flag) call check(val .eq. 'true', 'comm_get_info value')
      call mpi_info_free(iused, ierr)
      call mpi_comm_free(dup, ierr)
      call mpi_comm_idup_with_info(MPI_COMM_WORLD, info, dup, req,
     &     ierr)
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      call mpi_comm_size(dup, n, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. n .eq. p,
     &     'idup_with_info')
      call mpi_comm_free(dup, ierr)
      call mpi_info_free(info, ierr)

c     ---- darray: 10 * p INTEGERs in blocks of 10 ----
      gs(1) = 10 * p
      ds(1) = MPI_DISTRIBUTE_BLOCK
      da(1) = MPI_DISTRIBUTE_DFLT_DARG
      ps(1) = p
      call mpi_type_create_darray(p, rank, 1, gs, ds, da, ps,
     &     MPI_ORDER_FORTRAN, MPI_INTEGER, dt, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'create_darray')
      call mpi_type_size(dt, sz, ierr)
      call check(sz .eq. 40, 'darray size')
      call mpi_type_free(dt, ierr)

c     ---- alloc_mem: an address that free_mem takes back ----
      msize = 4096
      base = 0
      call mpi_alloc_mem(msize, MPI_INFO_NULL, base, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. base .ne. 0, 'alloc_mem')
      call freeit(%val(base))

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      call mpi_finalize(ierr)
      end

c     the allocated memory as an array: write all of it, then free it
      subroutine freeit(mem)
      implicit none
      include 'mpif.h'
      integer mem(1024), i, ierr
      do i = 1, 1024
         mem(i) = i
      enddo
      call mpi_free_mem(mem, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'free_mem')
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL groups: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
