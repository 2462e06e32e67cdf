use kupfer as kp;
fn main() -> kp::Result<()> {
    let dev = kp::Device::default_device()?;
    println!(
        "{:?} f16={} f64={} i64={}",
        dev,
        dev.supports(kp::DType::F16),
        dev.supports(kp::DType::F64),
        dev.supports(kp::DType::I64)
    );
    let x = kp::Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    let y = (&x * 2.0 + 1.0).to_vec::<f32>()?;
    println!("{y:?}");
    let t = x.t()?;
    println!("T+x {:?}", (&t + &x).to_vec::<f32>()?);
    let a = kp::arange(0, 10, 1, None)?;
    println!("arange {:?} {:?}", a.dtype(), a.to_host()?);
    let r = a.slice(&kp::s![..;-2])?;
    println!("rev {:?}", r.to_host()?);
    let l = kp::linspace(0.0, 1.0, 5, true, Some(kp::DType::F32))?;
    println!("linspace {:?}", l.to_vec::<f32>()?);
    let e = kp::eye(3, Some(4), 1, Some(kp::DType::I32))?;
    println!("eye {:?}", e.to_vec::<i32>()?);
    let s = kp::add(kp::sin(&l)?, kp::cos(&l)?)?;
    println!("sin+cos {:?}", s.to_vec::<f32>()?);
    let q = kp::floor_divide(
        kp::Array::from_slice(&[-7i32, 7, -7, 7], &[4])?,
        kp::Array::from_slice(&[2i32, -2, -2, 0], &[4])?,
    )?;
    println!("floordiv {:?}", q.to_vec::<i32>()?);
    let ev0 = dev.record_event()?;
    let big = kp::ones(&[1 << 20], Some(kp::DType::F32))?;
    let z = (&big * 3.0).eval()?.clone();
    let ev1 = dev.record_event()?;
    println!(
        "elapsed {:?} ms, z[0]={:?}",
        ev0.elapsed_ms(&ev1)?,
        z.slice(&kp::s![0..2])?.to_vec::<f32>()?
    );
    println!(
        "pool used {} total {}",
        dev.memory_pool().used_bytes(),
        dev.memory_pool().total_bytes()
    );
    Ok(())
}
