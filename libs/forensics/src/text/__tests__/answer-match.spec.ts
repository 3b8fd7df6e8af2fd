import { answerMatches, containsAnswer, contentTerms, dropDayOfMonth, hasMonthName, joinSpacedDigitGroups, lightStem, normalizeText, quoteSentences, splitSentences, stripCitationMarkers, tokenize } from '@forensics/algorithms';

describe('normalizeText (SQuAD-style + numbers)', () => {
  it.each([
    ["The  Beatles' 1,000 Songs!", 'beatles 1000 songs'],
    ['Pokémon & Friends', 'pokemon and friends'],
    ["Presley's can't", 'presley cant'],
    ['five or 2.0 or 3.50', '5 or 2 or 3.50'],
    ['£15,000', '15000'],
    ['A', ''],
    ['1,2', '1 2'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });
});

describe('containsAnswer / answerMatches', () => {
  it('respects token boundaries', () => {
    expect(containsAnswer('released in 2015', '2')).toBe(false);
    expect(containsAnswer('a party', 'art')).toBe(false);
    expect(containsAnswer('there were 2 of them', '2')).toBe(true);
  });
  it('is numeric-aware', () => {
    expect(containsAnswer('about 1000 people', '1,000')).toBe(true);
    expect(containsAnswer('it has five members', '5')).toBe(true);
    expect(containsAnswer('cost £15,000 less', '£15,000')).toBe(true);
    expect(containsAnswer('cost £5,000 less', '£15,000')).toBe(false);
  });
  it('ignores case, punctuation, articles; empty answers never match', () => {
    expect(containsAnswer('Recorded by frank SINATRA, in 1961.', 'Frank Sinatra')).toBe(true);
    expect(containsAnswer('The Beatles played', 'Beatles')).toBe(true);
    expect(containsAnswer('anything', '!!')).toBe(false);
  });
  it('answerMatches checks the target inside the output only', () => {
    expect(answerMatches('It was Frank Sinatra.', 'Frank Sinatra')).toBe(true);
    expect(answerMatches('Sinatra', 'Frank Sinatra')).toBe(false);
  });
});

describe('tokenize and helpers', () => {
  it('tokenizes, drops stopwords and stems lightly', () => {
    expect(tokenize('The 4th season')).toEqual(['the', '4th', 'season']);
    expect(tokenize("The fourth season's episodes", { removeStopwords: true, stem: true })).toEqual(['4', 'season', 'episode']);
    expect(contentTerms('How many cities are not in the classes?')).toEqual(['many', 'city', 'not', 'class']);
  });
  it('lightStem keeps -ss/-us/-is and short words', () => {
    expect(['class', 'virus', 'analysis', 'bus', 'boxes', 'parties', 'dogs'].map(lightStem)).toEqual(['class', 'virus', 'analysis', 'bus', 'box', 'party', 'dog']);
  });
  it('splits sentences without breaking decimals or initials', () => {
    expect(splitSentences('It cost 3.5 million. J. Smith paid! Why? yes')).toEqual(['It cost 3.5 million.', 'J. Smith paid!', 'Why? yes']);
  });
  it('keeps abbreviations that never end a sentence inside it (titles, v., initialisms, No. 5)', () => {
    expect(splitSentences('Ward v. Holt went to the U.S. Supreme Court in 1961. Dr. Lem argued it. It was case No. 4 of Jan. 5, 1961. He said no. Then he left.'))
      .toEqual(['Ward v. Holt went to the U.S. Supreme Court in 1961.', 'Dr. Lem argued it.', 'It was case No. 4 of Jan. 5, 1961.', 'He said no.', 'Then he left.']);
    // A number abbreviation joins only before a number: "Jan." ending a sentence still ends it.
    expect(splitSentences('It opened in Jan. Sales rose.')).toEqual(['It opened in Jan.', 'Sales rose.']);
  });
  it('quotes sentences: as splitSentences but whole across ";", and an uncased text is split too, but not inside a spaced initial', () => {
    expect(quoteSentences('It sold well; Later it was filmed. Dr. Lem saw it.')).toEqual(['It sold well; Later it was filmed.', 'Dr. Lem saw it.']);
    expect(quoteSentences('Ward v. Holt went to the U.S. Supreme Court. it was heard.')).toEqual(['Ward v. Holt went to the U.S. Supreme Court. it was heard.']);
    expect(splitSentences('the u . s . army was founded in 1775 . recruits train . j. k. wrote it.')).toHaveLength(1);
    expect(quoteSentences('the u . s . army was founded in 1775 . recruits train . j. k. wrote it.'))
      .toEqual(['the u . s . army was founded in 1775 .', 'recruits train .', 'j. k. wrote it.']);
  });
  it('joins thousands groups split by a space, never inside a longer number or a decimal', () => {
    expect(['of 4, 500.', '1, 200, 000 people', 'the 25 000 seats', 'in 1998 200 people', '3.5, 000', '12, 3456', 'about 35 , 000 .', '8 , 850 km', '1998 , 200 people', '12 , 3456'].map(joinSpacedDigitGroups))
      .toEqual(['of 4,500.', '1,200,000 people', 'the 25000 seats', 'in 1998 200 people', '3.5, 000', '12, 3456', 'about 35,000 .', '8,850 km', '1998 , 200 people', '12 , 3456']);
    expect(normalizeText(joinSpacedDigitGroups('about 500, 000 members'))).toBe('about 500000 members');
  });
  it('drops the day of a date, and knows "may" the verb from May', () => {
    expect(['As of October\u00c2 24, 2018', 'on 24th of October', 'Oct. 3 and Dec 25th', 'teams may 24 players', 'octopus 24', 'Jan 2018'].map(dropDayOfMonth))
      .toEqual(['As of October , 2018', 'on  of October', 'Oct.  and Dec ', 'teams may 24 players', 'octopus 24', 'Jan 2018']);
    expect([hasMonthName('May 2018'), hasMonthName('it may rain'), hasMonthName('24 hours')]).toEqual([true, false, false]);
  });
  it('strips citation markers', () => {
    expect(normalizeText(stripCitationMarkers('in May 2012.[24] As of 2018,[update] 132'))).toBe('in may 2012 as of 2018 132');
  });
});
