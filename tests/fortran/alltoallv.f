! tests/fortran/alltoallv.f: Alltoallv from Fortran with uneven counts
! (rank r sends r+j+1 DOUBLE PRECISION values to rank j, some zero when
! r+j+1 is a multiple of 3) and displacements with gaps, as NPB FT
! and IS use it. Prints PASS.
      program alltoallv
      implicit none
      include 'mpif.h'
      integer maxp, maxn
      parameter (maxp=64, maxn=8192)
      integer rank, p, ierr, j, k, n
      integer scnt(maxp), sdsp(maxp), rcnt(maxp), rdsp(maxp)
      double precision sbuf(maxn), rbuf(maxn)

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      if (p .gt. maxp) call mpi_abort(MPI_COMM_WORLD, 2, ierr)

      n = 0
      do j = 1, p
         scnt(j) = cnt(rank, j - 1)
         sdsp(j) = n
         do k = 1, scnt(j)
            sbuf(n + k) = dble(rank) * 1.0d4 + dble(j - 1) * 1.0d2 + k
         enddo
         n = n + scnt(j) + 1
      enddo
      n = 0
      do j = 1, p
         rcnt(j) = cnt(j - 1, rank)
         rdsp(j) = n + 2
         n = n + rcnt(j) + 3
      enddo
      do k = 1, n
         rbuf(k) = -7.0d0
      enddo

      call mpi_alltoallv(sbuf, scnt, sdsp, MPI_DOUBLE_PRECISION,
     &     rbuf, rcnt, rdsp, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'ierr')

      do j = 1, p
         do k = 1, rcnt(j)
            call check(rbuf(rdsp(j) + k) .eq. dble(j - 1) * 1.0d4 +
     &           dble(rank) * 1.0d2 + k, 'payload')
         enddo
c        the gaps are untouched
         call check(rbuf(rdsp(j)) .eq. -7.0d0, 'gap before')
         call check(rbuf(rdsp(j) + rcnt(j) + 1) .eq. -7.0d0,
     &        'gap after')
      enddo

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      call mpi_finalize(ierr)

      contains

      integer function cnt(from, to)
      integer from, to
      cnt = from + to + 1
      if (mod(cnt, 3) .eq. 0) cnt = 0
      end function
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL alltoallv: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
