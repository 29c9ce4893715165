! fortran_binding: the point-to-point rules, from Fortran, built twice: with
! -DUSE_MPIF as fortran_mpif (`include 'mpif.h'`) and without as
! fortran_use_mpi (`use mpi`).
!
! Both bindings call the C MPI_ functions, so Omnibus sees everything.  Checks:
! per-pair order across sizes (small and large, one tag), MPI_ANY_SOURCE
! receives with the status telling the source, tag and count, MPI_Iprobe
! before the receive, and MPI_Waitall over Isend/Irecv requests.  On a
! broken promise: "FAIL <program name>: ..." on stderr and MPI_Abort.
program fortran_binding
#ifdef USE_MPIF
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  integer, parameter :: nmsg = 8
  integer :: lens(nmsg) = (/ 1, 100, 20000, 3, 5000, 1, 40000, 2 /)
  integer :: me, np, ierr, i, k, peer, cnt, src, n
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2*nmsg)
  integer :: reqs(2*nmsg)
  integer, allocatable :: buf(:,:), rbuf(:,:)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  allocate(buf(40000, nmsg), rbuf(40000, nmsg))

  ! 1: ring neighbours, mixed sizes, one tag, blocking sends, late receives
  peer = mod(me + 1, np)
  src = mod(me + np - 1, np)
  do i = 1, nmsg
    do k = 1, lens(i)
      buf(k, i) = me * 1000000 + i * 1000 + mod(k, 997)
    end do
  end do
  do i = 1, nmsg
    call MPI_Isend(buf(1, i), lens(i), MPI_INTEGER, peer, 7, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  do i = 1, nmsg
    call MPI_Recv(rbuf(1, i), 40000, MPI_INTEGER, src, 7, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
    if (cnt /= lens(i)) call fail('message in send order must have the length sent')
    do k = 1, lens(i)
      if (rbuf(k, i) /= src * 1000000 + i * 1000 + mod(k, 997)) &
        call fail('content of a message in per-pair order')
    end do
  end do
  call MPI_Waitall(nmsg, reqs, sts, ierr)

  ! 2: wildcard receives tell the source; Iprobe sees the message first
  call MPI_Send(me, 1, MPI_INTEGER, peer, 8, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, flag, st, ierr)
  end do
  if (st(MPI_SOURCE) /= src) call fail('Iprobe must report the source')
  call MPI_Recv(n, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
  if (n /= src .or. st(MPI_SOURCE) /= src .or. st(MPI_TAG) /= 8) &
    call fail('a wildcard receive must get the probed message and its envelope')

  ! 3: Waitall over receives and sends together
  do i = 1, nmsg
    call MPI_Irecv(rbuf(1, i), 40000, MPI_INTEGER, src, 9, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  do i = 1, nmsg
    call MPI_Isend(buf(1, i), lens(i), MPI_INTEGER, peer, 9, MPI_COMM_WORLD, reqs(nmsg + i), ierr)
  end do
  call MPI_Waitall(2*nmsg, reqs, sts, ierr)
  do i = 1, nmsg
    call MPI_Get_count(sts(:, i), MPI_INTEGER, cnt, ierr)
    if (cnt /= lens(i) .or. sts(MPI_SOURCE, i) /= src) &
      call fail('Waitall statuses must describe each receive')
    if (rbuf(lens(i), i) /= src * 1000000 + i * 1000 + mod(lens(i), 997)) &
      call fail('Waitall receive content')
  end do

  call MPI_Finalize(ierr)
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: e, slash
    character(len=256) :: name
    call get_command_argument(0, name)
    slash = index(name, '/', back=.true.)
    write (0, '(a, a, a, i0, a, a)') 'FAIL ', trim(name(slash+1:)), &
      ': rank ', me, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program fortran_binding
