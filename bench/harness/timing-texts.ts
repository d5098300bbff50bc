import { PROSE_SENTENCES } from '@agent-tts/load/workload.js';

/**
 * Prose in several scripts for the word-timings benchmark: everyday sentences with commas and sentence
 * ends (where eSpeak pauses). Japanese is written in kana, which eSpeak reads (it has no kanji readings).
 */
export const TIMING_TEXTS: readonly { language: string; voice: string; script: string; sentences: readonly string[] }[] = [
  { language: 'en-US', voice: 'af_heart', script: 'Latin', sentences: PROSE_SENTENCES },
  {
    language: 'fr-FR',
    voice: 'ff_siwis',
    script: 'Latin',
    sentences: [
      'Le temps était doux ce matin, alors nous sommes allés à pied au marché.',
      'Nous avons acheté du pain frais, des pommes, des poires et un peu de fromage.',
      'Sur le chemin du retour, nous nous sommes arrêtés à la bibliothèque.',
      'Marie a demandé si le train pour la côte partait toujours à huit heures.',
      'Personne n’a répondu; puis le contrôleur a dit que le service était annulé.',
      'Nous avons donc pris le bus, plus lent mais moins cher.',
      'À midi, le soleil était haut, et les champs étaient jaunes.',
      'Les enfants ont compté vingt moulins, trois ponts et une vieille église!',
      'Y a-t-il quelque chose de mieux qu’un long déjeuner à l’ombre?',
      'Le soir, il a plu un peu, et les rues sentaient la pierre mouillée.',
    ],
  },
  {
    language: 'ru',
    voice: 'st_f1',
    script: 'Cyrillic',
    sentences: [
      'Сегодня утром погода была мягкой, поэтому мы пошли пешком на рынок.',
      'Мы купили свежий хлеб, яблоки, груши и немного сыра.',
      'По дороге домой мы зашли в библиотеку, где много новых книг.',
      'Мария спросила, уходит ли поезд к морю в восемь часов.',
      'Сначала никто не ответил; потом кондуктор сказал, что поезд отменили.',
      'Мы сели на автобус, который шёл медленнее, но стоил дешевле.',
      'В полдень солнце стояло высоко, и поля были жёлтыми.',
      'Дети насчитали двадцать мельниц, три моста и старую церковь!',
      'Что может быть лучше долгого обеда в тени старого дуба?',
      'Вечером прошёл дождь, и улицы пахли мокрым камнем и хлебом.',
    ],
  },
  {
    language: 'ja',
    voice: 'jf_alpha',
    script: 'Japanese (kana)',
    sentences: [
      'けさはあたたかかったので、いちばまであるいていきました。',
      'やきたてのパンと、りんごと、すこしのチーズをかいました。',
      'かえりみちに、としょかんによりました。',
      'マリアさんは、でんしゃがまだはちじにでるかとききました。',
      'はじめは、だれもこたえませんでした。',
      'それで、わたしたちはバスにのりました。',
      'おひるには、おひさまがたかくのぼりました。',
      'こどもたちは、かざぐるまをにじゅうかぞえました！',
      'ふるいきのしたで、ながいひるごはんをたべました。',
      'よるは、すこしあめがふりました。',
    ],
  },
];

/** The sentences cycled to at least `length` UTF-16 units, whole sentences, separated as the script is. */
export function textOfLength(sentences: readonly string[], language: string, length: number): string {
  const separator = language === 'ja' ? '' : ' ';
  const parts: string[] = [];
  let total = 0;
  for (let i = 0; total < length; i++) {
    const sentence = sentences[i % sentences.length]!;
    parts.push(sentence);
    total += sentence.length + separator.length;
  }
  return parts.join(separator);
}
