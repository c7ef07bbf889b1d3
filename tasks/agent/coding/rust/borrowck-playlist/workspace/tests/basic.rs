use playlist::Library;

#[test]
fn add_and_play() {
    let mut lib = Library::new();
    let a = lib.add("Blue", "Joni", 180);
    let b = lib.add("River", "Joni", 240);
    assert_eq!((a, b), (1, 2));
    assert_eq!(lib.play(b).map(|t| t.plays), Some(1));
    assert_eq!(lib.most_played().map(|t| t.id), Some(b));
    assert_eq!(lib.artist_tracks("Joni").len(), 2);
    assert_eq!(lib.seconds_by_artist(), vec![("Joni".to_string(), 420)]);
}
