import type { MailStrings } from './types.js';

// Brazilian Portuguese (pt-BR), addressing the reader as "você"; Brazilian quotes “…”.
const q = (name: string) => `“${name}”`;
const plural = (n: number, one: string, other: string) => `${n} ${n === 1 ? one : other}`;

const PT_ROLES = { owner: 'proprietário', admin: 'administrador', member: 'membro' } as const;

export const pt: MailStrings = {
  htmlLang: 'pt-BR',
  layout: {
    sentBy: (company) => `Enviado por ${company} via linkvault`,
    sentVia: 'Enviado via linkvault',
    linkFallback: 'Se o botão não funcionar, copie e cole este link no seu navegador:',
    colon: ':',
    unverified: (address) => `${address} (endereço não verificado)`,
  },
  otpCode: {
    subject: (d) => `${d.code} é o seu código para acessar ${q(d.documentName)}`,
    preheader: (d) => `Válido por ${plural(d.minutes, 'minuto', 'minutos')}.`,
    heading: 'Seu código de verificação',
    intro: (d) => `Digite este código para abrir ${q(d.documentName)}:`,
    validity: (d) => `O código é válido por ${plural(d.minutes, 'minuto', 'minutos')}.`,
    ignore: 'Se você não pediu este código, pode ignorar este e-mail. Não compartilhe o código com ninguém.',
  },
  documentShared: {
    subject: (d) => `${d.senderName} compartilhou ${q(d.documentName)} com você`,
    preheader: () => 'Abra o documento direto no navegador.',
    heading: 'Um documento foi compartilhado com você',
    intro: (d) => `${d.senderName} compartilhou o documento ${q(d.documentName)} com você.`,
    // "Mensagem de/da/do" would depend on the sender's gender; this wording does not.
    messageFrom: (d) => `${d.senderName} escreveu:`,
    button: 'Ver documento',
  },
  accessRequested: {
    subject: (d) => `${d.requesterEmail} pediu acesso a ${q(d.documentName)}`,
    preheader: () => 'Aprove ou recuse a solicitação pelo painel.',
    heading: 'Nova solicitação de acesso',
    intro: (d) => `${d.requesterEmail} solicitou acesso a ${q(d.documentName)}.`,
    labels: { email: 'E-mail', ip: 'Endereço IP', requestId: 'ID da solicitação' },
    button: 'Ver a solicitação',
    approveHowTo: 'Ou aprove pela API com esta requisição:',
    denyHowTo: (body) => `Para recusar, envie a mesma requisição com ${body}.`,
    outcome: 'O visitante receberá um e-mail com a sua decisão.',
  },
  accessApproved: {
    subject: (d) => `Você já pode acessar ${q(d.documentName)}`,
    preheader: () => 'Sua solicitação de acesso foi aprovada.',
    heading: 'Acesso liberado',
    intro: (d) => `Boa notícia: sua solicitação de acesso a ${q(d.documentName)} foi aprovada.`,
    button: 'Ver documento',
  },
  accessDenied: {
    subject: (d) => `Sua solicitação de acesso a ${q(d.documentName)} foi recusada`,
    preheader: () => 'Quem compartilhou o documento não aprovou a sua solicitação.',
    heading: 'Solicitação recusada',
    intro: (d) => `Quem compartilhou ${q(d.documentName)} recusou a sua solicitação de acesso.`,
    followUp: 'Se você acha que houve um engano, entre em contato com a pessoa que enviou o link para você.',
  },
  purchaseReceipt: {
    subject: (d) => `Recibo da sua compra: ${q(d.documentName)}`,
    preheader: () => 'Seu link de download já está pronto.',
    heading: 'Obrigado pela sua compra!',
    intro: (d) => `Recebemos seu pagamento de ${d.amountFormatted} por ${q(d.documentName)}.`,
    labels: { document: 'Documento', amount: 'Valor pago' },
    button: 'Baixar o arquivo',
    limits: (d) =>
      `Com este link, você pode baixar o arquivo ${d.downloadsAllowed === 1 ? 'uma única vez' : `até ${d.downloadsAllowed} vezes`} ` +
      `${d.validDays === 1 ? 'nas próximas 24 horas' : `nos próximos ${d.validDays} dias`}.`,
    keepSafe: 'Guarde este e-mail e não o encaminhe: qualquer pessoa com o link pode baixar o arquivo.',
  },
  saleMade: {
    subject: (d) => `${q(d.documentName)} foi comprado por ${d.amountFormatted}`,
    preheader: (d) => `Comprado por ${d.buyerEmail}.`,
    heading: 'Você fez uma venda',
    intro: (d) => `${d.buyerEmail} comprou ${q(d.documentName)} por ${d.amountFormatted}.`,
    labels: { buyer: 'Comprador', document: 'Documento', amount: 'Valor' },
    button: 'Abrir as estatísticas',
    footer: 'O comprador recebeu um recibo com o link de download. O pagamento vai para a sua conta Stripe conectada.',
  },
  invitation: {
    subject: (d) => `${d.inviterName} convidou você para ${d.accountName} no linkvault`,
    preheader: (d) => `Entre como ${PT_ROLES[d.role]}.`,
    heading: 'Você recebeu um convite',
    intro: (d) => `${d.inviterName} convidou você para participar de ${q(d.accountName)} no linkvault como ${PT_ROLES[d.role]}.`,
    button: 'Aceitar o convite',
    validity: (d) => `O convite é válido por ${plural(d.days, 'dia', 'dias')}.`,
    ignore: 'Se você não esperava este convite, pode ignorar este e-mail.',
  },
  viewAlert: {
    subject: (d) => `${d.visitor} abriu ${q(d.documentName)}`,
    preheader: (d) => `${d.viewedAt}`,
    heading: 'Seu documento foi aberto',
    intro: (d) => `${d.visitor} acabou de abrir ${q(d.documentName)}.`,
    labels: { visitor: 'Visitante', document: 'Documento', time: 'Hora' },
    button: 'Abrir as estatísticas',
    footer:
      'Você recebe um e-mail assim por visitante e documento a cada hora, no máximo. Para não recebê-los deste documento, desative o alerta nas configurações dele no painel, ou de todos os seus no seu perfil; para um resumo por dia, altere os alertas de visualização nas configurações de compartilhamento da conta.',
  },
  viewDigest: {
    subject: (d) => `${plural(d.views.length + d.more, 'visualização', 'visualizações')} dos seus documentos em ${d.day}`,
    preheader: (d) => `Quem abriu o quê em ${d.day}.`,
    heading: 'Suas visualizações do dia',
    intro: (d) => `Em ${d.day} (UTC), seus documentos foram abertos ${plural(d.views.length + d.more, 'vez', 'vezes')}:`,
    line: (v) => `${v.visitor} abriu ${q(v.documentName)}`,
    more: (n) => `…e mais ${plural(n, 'visualização', 'visualizações')}.`,
    button: 'Abrir as estatísticas',
    footer:
      'Este resumo substitui um e-mail por visualização. Volte a um e-mail por visualização nos alertas de visualização das configurações de compartilhamento da conta, no painel.',
  },
  magicLink: {
    subject: 'Seu link para entrar no linkvault',
    preheader: (d) => `Funciona uma única vez, por ${plural(d.minutes, 'minuto', 'minutos')}.`,
    heading: 'Entrar no linkvault',
    intro: 'Use o botão abaixo para entrar.',
    button: 'Entrar',
    validity: (d) => `O link funciona uma única vez e é válido por ${plural(d.minutes, 'minuto', 'minutos')}.`,
    ignore: 'Se você não pediu este link, ignore este e-mail: ninguém consegue entrar sem ele.',
  },
  passwordReset: {
    subject: 'Redefina sua senha do linkvault',
    preheader: (d) => `O link é válido por ${plural(d.minutes, 'minuto', 'minutos')}.`,
    heading: 'Redefinir sua senha',
    intro: 'Recebemos um pedido para redefinir sua senha do linkvault.',
    button: 'Escolher uma nova senha',
    validity: (d) => `O link funciona uma única vez e é válido por ${plural(d.minutes, 'minuto', 'minutos')}.`,
    ignore: 'Se você não pediu a redefinição, ignore este e-mail: sua senha continua a mesma.',
  },
  signUp: {
    subject: 'Confirme seu e-mail para o linkvault',
    preheader: (d) => `O link é válido por ${plural(d.hours, 'hora', 'horas')}.`,
    heading: 'Confirme seu e-mail',
    intro: 'Confirme seu endereço de e-mail para criar sua conta no linkvault.',
    button: 'Confirmar e continuar',
    validity: (d) => `O link funciona uma única vez e é válido por ${plural(d.hours, 'hora', 'horas')}.`,
    ignore: 'Se você não se cadastrou, pode ignorar este e-mail.',
  },
  emailChange: {
    subject: 'Confirme seu novo endereço de acesso ao linkvault',
    preheader: (d) => `O link é válido por ${plural(d.minutes, 'minuto', 'minutos')}.`,
    heading: 'Confirme seu novo endereço',
    intro: 'Você pediu para entrar no linkvault com este endereço a partir de agora.',
    button: 'Usar este endereço',
    validity: (d) =>
      `O link funciona uma única vez e é válido por ${plural(d.minutes, 'minuto', 'minutos')}. Até você abri-lo, o acesso continua com seu endereço atual.`,
    ignore: 'Se você não pediu isso, ignore este e-mail: nada muda sem o link.',
  },
  signInDeleted: {
    subject: 'Seu acesso ao linkvault foi excluído',
    preheader: 'Você não faz mais parte de nenhuma conta do linkvault.',
    heading: 'Seu acesso foi excluído',
    intro:
      'O acesso ao linkvault deste endereço foi excluído: ele não pertence mais a nenhuma conta, e os links enviados a ele antes não funcionam mais.',
    notYou: 'Se não foi você, avise logo um proprietário das suas contas: ele pode convidar você de novo.',
  },
  accountDeleted: {
    subject: (d) => `A conta ${d.accountName} do linkvault foi excluída`,
    preheader: (d) => `${d.by} a excluiu, com todo o seu conteúdo.`,
    heading: 'Uma conta da qual você faz parte foi excluída',
    intro: (d) =>
      `${d.by} excluiu a conta ${d.accountName}: seus documentos, links, salas e estatísticas não existem mais, e você não pode mais abri-la.`,
    operator: 'O administrador do servidor',
    signInDeleted: 'Era a única conta da qual você fazia parte, então seu acesso ao linkvault também foi excluído.',
  },
  emailChanged: {
    subject: 'Seu endereço de acesso ao linkvault foi alterado',
    preheader: (d) => `Agora você entra como ${d.newEmail}.`,
    heading: 'Seu endereço de acesso mudou',
    intro: (d) =>
      `Seu acesso ao linkvault passou deste endereço para ${d.newEmail}. Links de acesso e de redefinição enviados para cá antes não funcionam mais.`,
    notYou: 'Se não foi você que fez essa alteração, peça agora a um proprietário da sua conta que remova esse endereço dos membros.',
  },
};
