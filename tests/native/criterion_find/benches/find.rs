use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn naive(hay: &[u8], needle: u8) -> Option<usize> {
    hay.iter().position(|&b| b == needle)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("find_byte");
    for size in [1024usize, 16384] {
        let hay = vec![b'a'; size];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("naive", size), &hay, |b, h| b.iter(|| naive(black_box(h), b'z')));
        group.bench_with_input(BenchmarkId::new("rposition", size), &hay, |b, h| {
            b.iter(|| black_box(h).iter().rposition(|&x| x == b'z'))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
